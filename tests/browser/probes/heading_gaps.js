// No heading leaves an empty line under its text (a hidden permalink that wrapped
// onto a line of its own). Returns ["problem", ...].
() => {
  const problems = [];
  const content = document.querySelector(".md-content");
  for (const h of content ? content.querySelectorAll("h1, h2, h3, h4, h5, h6") : []) {
    if (!h.getClientRects().length) continue;
    let bottom = -Infinity;
    const walker = document.createTreeWalker(h, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      if (!node.textContent.trim() || node.parentElement.closest(".headerlink")) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) bottom = Math.max(bottom, r.bottom);
    }
    const style = getComputedStyle(h);
    const end = h.getBoundingClientRect().bottom - parseFloat(style.paddingBottom) - parseFloat(style.borderBottomWidth);
    const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.2;
    if (bottom > -Infinity && end - bottom > line / 2) {
      problems.push(`heading "${h.textContent.replace("¶", "").trim().slice(0, 50)}" leaves ${Math.round(end - bottom)} px empty under its text`);
    }
  }
  return problems;
}
