// One plot as drawn: the page behind it, each text's colour and size on screen
// (its font size times the SVG's scale), each data mark's colour (the elements
// whose style names a --plot-c colour), and where the SVG ends.
figure => {
  let background = null;
  for (let el = figure; el && !background; el = el.parentElement) {
    const c = getComputedStyle(el).backgroundColor;
    if (c !== "rgba(0, 0, 0, 0)" && c !== "transparent") background = c;
  }
  const svgs = [...figure.querySelectorAll("svg")];
  return {
    background: background || "rgb(255, 255, 255)",
    viewport: document.documentElement.clientWidth,
    svgs: svgs.map(svg => {
      const box = svg.getBoundingClientRect();
      const scale = box.width / (svg.viewBox.baseVal.width || box.width);
      const data = [...svg.querySelectorAll("[style*='--plot-c']")];
      return {
        right: box.right,
        role: svg.getAttribute("role"),
        alt: svg.getAttribute("aria-label") || "",
        text: [...svg.querySelectorAll("text")].map(t => ({
          text: t.textContent,
          fill: getComputedStyle(t).fill,
          px: parseFloat(getComputedStyle(t).fontSize) * scale,
        })),
        marks: data.map(el => {
          const s = getComputedStyle(el);
          return s.stroke !== "none" ? s.stroke : s.fill;
        }),
      };
    }),
  };
}
