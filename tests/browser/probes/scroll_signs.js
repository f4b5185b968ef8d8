// A box in the content that scrolls sideways shows that it does: extra.css draws a
// shadow at each edge where more is hidden, as background layers fixed to the box
// ("scroll") under covers that move with the content ("local"). Returns ["problem"].
() => {
  const problems = [];
  const content = document.querySelector(".md-content");
  for (const el of content ? content.querySelectorAll("*") : []) {
    const style = getComputedStyle(el);
    if (!["auto", "scroll"].includes(style.overflowX) || !el.getClientRects().length) continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    const layers = style.backgroundAttachment.split(",").map((s) => s.trim());
    const shadows = (style.backgroundImage.match(/gradient\(/g) || []).length;
    if (!(layers.includes("local") && layers.includes("scroll") && shadows >= 2)) {
      const title = el.closest(".highlight")?.querySelector(".filename")?.textContent;
      const what = title || `<${el.tagName.toLowerCase()}> "${el.textContent.trim().slice(0, 30)}"`;
      problems.push(`${what} scrolls sideways (${el.scrollWidth} px in ${el.clientWidth}) with no sign that it does`);
    }
  }
  return problems;
}
