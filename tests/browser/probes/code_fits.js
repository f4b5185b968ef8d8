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
  // How far the text reaches: the rectangles of its text nodes (not Material's
  // annotation tooltips or buttons, which are positioned over the block).
  const textRight = (code) => {
    let right = 0;
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => (n.parentElement.closest(".md-annotation, .md-code__nav, nav, .fold-label")
        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    const range = document.createRange();
    while (walker.nextNode()) {
      if (!walker.currentNode.textContent.trim()) continue;
      range.selectNodeContents(walker.currentNode);
      for (const r of range.getClientRects()) right = Math.max(right, r.right);
    }
    return right;
  };
  const problems = [];
  const outside = [];
  for (const el of content.querySelectorAll("pre")) {
    if (!el.getClientRects().length) continue;  // hidden by the page itself
    const code = el.querySelector(":scope > code") || el;
    const box = code.getBoundingClientRect();
    const right = textRight(code) + code.scrollLeft;
    const visible = box.left + code.clientWidth;
    if (right > visible + 1) {
      problems.push(`${name(el)} scrolls sideways: ${Math.round(right - box.left)} px of text in ${code.clientWidth} px`);
    }
    const label = code.querySelector(".fold-label");
    if (label && label.scrollWidth > label.clientWidth + 1) {
      problems.push(`${name(el)}: its fold's summary is cut: ${label.textContent.slice(0, 60)}`);
    }
    // A notebook cell's stderr (a warning) is a message, not code: it may wrap.
    const message = el.closest('[data-mime-type="application/vnd.jupyter.stderr"]');
    const wrap = getComputedStyle(code).whiteSpace;
    if (!message && !["pre", "nowrap"].includes(wrap)) problems.push(`${name(el)} wraps its lines (white-space: ${wrap})`);
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
