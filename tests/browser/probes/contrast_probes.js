// axe's colour rules (color-contrast, link-in-text-block) look at every text node,
// 1,500-2,900 on a chapter. What decides a text's contrast is its own colour, size,
// weight and decoration, its parent's colour, and the colours, images, opacity and
// filters of every box behind it: this marks one visible element for each distinct
// combination of those not in `checked` (data-contrast-probe), and returns the new
// combinations.
(checked) => {
  const css = (el) => getComputedStyle(el);
  const behind = new Map();  // element -> the colours, images, opacity, filters of it and its ancestors
  const boxes = (el) => {
    if (!el) return "";
    if (!behind.has(el)) {
      const b = css(el);
      behind.set(el, [b.backgroundColor, b.backgroundImage, b.opacity, b.mixBlendMode, b.filter,
                      boxes(el.parentElement)].join("|"));
    }
    return behind.get(el);
  };
  const key = (el) => {
    const s = css(el), parent = el.parentElement ? css(el.parentElement) : s;
    return [s.color, s.fontSize, s.fontWeight, s.textDecorationLine, s.textShadow,
            s.webkitTextFillColor, parent.color, parent.textDecorationLine, boxes(el)].join("|");
  };
  document.querySelectorAll("[data-contrast-probe]").forEach((e) => e.removeAttribute("data-contrast-probe"));
  const seen = new Set(checked);
  const fresh = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!el || !walker.currentNode.textContent.trim()) continue;
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const k = key(el);
    if (!seen.has(k)) { seen.add(k); fresh.push(k); el.setAttribute("data-contrast-probe", ""); }
  }
  return fresh;
}
