// Code blocks that do not fit the column: every block of the page (collapsed blocks
// opened, every tab shown, set-up folds opened), one that scrolls sideways or wraps
// its lines; and code inside a box set smaller than code outside one. Put back as
// it was afterwards. Returns ["problem", ...].
() => {
  const content = document.querySelector(".md-content");
  if (!content) return [];
  const closed = [...content.querySelectorAll("details:not([open])")];
  const folds = [...content.querySelectorAll(".fold-switch:not(:checked)")];
  const reveal = document.createElement("style");
  reveal.textContent = ".md-content .tabbed-block { display: block !important; }";
  document.head.append(reveal);
  closed.forEach((d) => (d.open = true));
  folds.forEach((f) => (f.checked = true));
  const name = (el) => {
    const block = el.closest(".highlight, .jp-Cell, .jp-OutputArea-output");
    const title = block?.querySelector(".filename")?.textContent;
    return title || `a block starting "${el.textContent.trim().slice(0, 40)}"`;
  };
  const problems = [];
  const outside = [];
  for (const el of content.querySelectorAll("pre")) {
    if (!el.getClientRects().length) continue;  // hidden by the page itself
    const code = el.querySelector(":scope > code") || el;
    for (const box of new Set([el, code])) {
      if (box.scrollWidth > box.clientWidth + 1) {
        problems.push(`${name(el)} scrolls sideways: ${box.scrollWidth} px of text in ${box.clientWidth} px`);
        break;
      }
    }
    const wrap = getComputedStyle(code).whiteSpace;
    if (!["pre", "nowrap"].includes(wrap)) problems.push(`${name(el)} wraps its lines (white-space: ${wrap})`);
    const size = parseFloat(getComputedStyle(code).fontSize);
    if (el.closest(".admonition, details")) {
      if (outside.length && size < Math.max(...outside) - 0.01) {
        problems.push(`${name(el)} in a box is set at ${size} px, code elsewhere at ${Math.max(...outside)} px`);
      }
    } else if (el.closest(".highlight")) {
      outside.push(size);
    }
  }
  closed.forEach((d) => (d.open = false));
  folds.forEach((f) => (f.checked = false));
  reveal.remove();
  return problems;
}
