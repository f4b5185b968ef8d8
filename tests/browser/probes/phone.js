// On a phone's width: the page is no wider than the screen, and nothing in the
// content reaches past its right edge unless it sits in a box that scrolls on its
// own (code, a table, a formula); a fold's summary keeps clear of the copy button;
// short inline code does not break inside a number.
// Returns ["problem", ...].
() => {
  const problems = [];
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width + 1) {
    problems.push(`the page is ${document.documentElement.scrollWidth} px wide on a ${width} px screen`);
  }
  const scrolls = (el) => ["auto", "scroll", "hidden"].includes(getComputedStyle(el).overflowX);
  const inScroller = (el) => {
    for (let p = el.parentElement; p && !p.classList.contains("md-content"); p = p.parentElement) {
      if (scrolls(p)) return true;
    }
    return false;
  };
  const content = document.querySelector(".md-content");
  for (const el of content ? content.querySelectorAll("*") : []) {
    const box = el.getBoundingClientRect();
    if (box.width && box.right > width + 1 && !inScroller(el)) {
      problems.push(`<${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? ` class="${el.className}"` : ""}> reaches ${Math.round(box.right)} px on a ${width} px screen`);
      if (problems.length > 5) break;
    }
  }
  // A set-up fold's summary keeps clear of the copy button at its block's top right:
  // its text ends before the padding it keeps on the right of the box a reader sees.
  for (const label of content ? content.querySelectorAll(".fold-label") : []) {
    if (!label.getClientRects().length) continue;
    const code = label.closest("code");
    const seen = Math.min(label.getBoundingClientRect().right, code.getBoundingClientRect().left + code.clientWidth);
    const range = document.createRange();
    range.selectNodeContents(label);
    const text = Math.max(...[...range.getClientRects()].map((r) => r.right));
    if (text > seen - parseFloat(getComputedStyle(label).paddingRight) + 1) {
      const file = label.closest(".highlight")?.querySelector(".filename")?.textContent || "a block";
      problems.push(`${file}: its fold's summary runs under the copy button: ${label.textContent.slice(0, 60)}`);
    }
  }
  // A number in inline code (1e-8, 0.001) split over two lines: the rectangles of its
  // own characters, found with a Range over its text.
  const NUMBER = /\d[\d.]*(?:e-?\d+)?/g;
  for (const code of content ? content.querySelectorAll(":not(pre) > code") : []) {
    if (code.getClientRects().length < 2) continue;
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      for (const m of node.textContent.matchAll(NUMBER)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) problems.push(`inline code ${code.textContent} breaks inside ${m[0]}`);
      }
    }
  }
  return problems;
}
