// Formulas left as TeX in the text a reader sees ($\frac{..}{..}$, $$...$$), outside
// code, scripts and rendered math. Returns ["problem", ...].
() => {
  const content = document.querySelector(".md-content");
  if (!content) return [];
  const skip = new Set(["PRE", "CODE", "MATH", "SCRIPT", "STYLE"]);
  const walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => {
      for (let el = node.parentElement; el && el !== content; el = el.parentElement) {
        if (skip.has(el.tagName.toUpperCase())) return NodeFilter.FILTER_REJECT;
      }
      return NodeFilter.FILTER_ACCEPT;
    },
  });
  let text = "";
  while (walker.nextNode()) text += walker.currentNode.textContent;
  const found = text.match(/\$\$[^$]+\$\$|\$[^$\s][^$]*\\[A-Za-z]+[^$]*\$/g) || [];
  return found.map((tex) => `raw TeX: ${tex.slice(0, 60)}`);
}
