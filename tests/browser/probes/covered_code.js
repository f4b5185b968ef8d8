// No code block's copy button covers its text. Material adds the buttons (a
// nav.md-code__nav) only to blocks that have scrolled into view (content.lazy), so
// each block gets a stand-in nav with the same classes, placed by the same CSS,
// measured and removed. Returns ["problem", ...].
() => {
  const problems = [];
  const content = document.querySelector(".md-content");
  for (const pre of content ? content.querySelectorAll(".highlight > pre") : []) {
    const code = pre.querySelector(":scope > code");
    if (!code || !pre.getClientRects().length) continue;
    let nav = pre.querySelector(":scope > .md-code__nav");
    const standIn = !nav;
    if (standIn) {
      nav = document.createElement("nav");
      nav.className = "md-code__nav";
      nav.innerHTML = '<button class="md-code__button" type="button"></button>';
      pre.prepend(nav);
    }
    const box = nav.getBoundingClientRect();
    const covered = [];
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    while (walker.nextNode() && covered.length < 20) {
      const node = walker.currentNode;
      const range = document.createRange();
      range.selectNodeContents(node);
      const r = range.getBoundingClientRect();
      if (r.top >= box.bottom) break;
      if (!(r.right > box.left && r.left < box.right && r.bottom > box.top)) continue;
      for (let i = 0; i < node.textContent.length; i++) {
        if (!node.textContent[i].trim()) continue;
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const c = range.getBoundingClientRect();
        if (c.right > box.left + 0.5 && c.left < box.right - 0.5 && c.bottom > box.top + 0.5 && c.top < box.bottom - 0.5) {
          covered.push(node.textContent[i]);
        }
      }
    }
    if (standIn) nav.remove();
    if (covered.length) {
      const title = pre.closest(".highlight").querySelector(".filename")?.textContent;
      const first = code.textContent.trim().split("\n")[0].slice(0, 50);
      problems.push(`${title || `"${first}"`}: the copy button covers "${covered.join("")}"`);
    }
  }
  return problems;
}
