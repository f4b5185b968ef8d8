// The computed colours of one autograd figure: the page behind it, each node's text,
// outline and fill, each edge's line.
figure => {
  let background = null;
  for (let el = figure; el && !background; el = el.parentElement) {
    const c = getComputedStyle(el).backgroundColor;
    if (c !== "rgba(0, 0, 0, 0)" && c !== "transparent") background = c;
  }
  const shapes = g => [...g.querySelectorAll("path, polygon, ellipse")];
  return {
    background: background || "rgb(255, 255, 255)",
    nodes: [...figure.querySelectorAll("g.node")].map(g => ({
      id: g.id,
      text: [...g.querySelectorAll("text")].map(t => getComputedStyle(t).fill),
      stroke: shapes(g).map(s => getComputedStyle(s).stroke),
      fill: shapes(g).map(s => getComputedStyle(s).fill),
    })),
    edges: [...figure.querySelectorAll("g.edge path")].map(s => getComputedStyle(s).stroke),
  };
}
