// On a phone, printed output reads without scrolling sideways: each line of output (a
// span holding .go tokens, sitelib/site/codeblocks/output.py) fits its block's visible
// width, wrapping if it must, and is not pushed out of view. Returns ["problem"].
() => {
  const problems = [];
  for (const line of document.querySelectorAll('.md-content .highlight span[id^="__span"]')) {
    if (!line.querySelector(":scope > .go") || !line.getClientRects().length) continue;
    const box = line.closest("code, pre").getBoundingClientRect();
    const drawn = line.getBoundingClientRect();
    const hidden = line.scrollWidth > line.clientWidth + 1 || drawn.right > box.right + 1;
    if (hidden) {
      const title = line.closest(".highlight")?.querySelector(".filename")?.textContent || "a block";
      const text = line.textContent.replace(/^Output: /, "").trim().slice(0, 40);
      problems.push(`${title}: the output "${text}" runs past the block's edge (${Math.round(line.scrollWidth)} px in ${Math.round(Math.min(line.clientWidth, box.width))})`);
    }
  }
  return problems;
}
