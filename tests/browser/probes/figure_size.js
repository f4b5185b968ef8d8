// An autograd figure as drawn now: how far it reaches, the size its labels are drawn
// at, and whether its "open full size" button shows. Returns {right, label, button}.
(figure) => {
  const svg = figure.querySelector("svg");
  const text = svg.querySelector("text");
  const label = text ? text.getScreenCTM().a * parseFloat(getComputedStyle(text).fontSize) : Infinity;
  const button = figure.querySelector(".graph-full");
  return {
    right: svg.getBoundingClientRect().right,
    label,
    button: !!button && !button.hidden && button.getClientRects().length > 0,
  };
}
