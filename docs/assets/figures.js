// An autograd figure (overrides/partials/autograd-graph.html) is drawn to fit its
// column. Where that shrinks it (a phone: labels under reading size), its button is
// shown, and a tap on the button or on the picture opens the picture at its own size
// in a dialog that fills the screen and scrolls; Escape or "Close" closes it.
// Checked by tests/browser/test_reading.py (page_check_figure_fits).
(function () {
  const NATURAL = (svg) => svg.width.baseVal.value; // the SVG's own width, in CSS px

  function mark() {
    document.querySelectorAll("figure.autograd-graph").forEach((figure) => {
      const svg = figure.querySelector(":scope > svg");
      const button = figure.querySelector(":scope > .graph-full");
      if (svg && button) button.hidden = svg.getBoundingClientRect().width >= NATURAL(svg) - 1;
    });
  }

  function open(figure) {
    const dialog = document.createElement("dialog");
    dialog.className = "graph-dialog autograd-graph";
    dialog.setAttribute("aria-label", "The picture at full size");
    const close = document.createElement("button");
    close.type = "button";
    close.className = "md-button graph-close";
    close.textContent = "Close";
    close.addEventListener("click", () => dialog.close());
    const picture = figure.querySelector(":scope > svg").cloneNode(true);
    picture.querySelectorAll("[id]").forEach((el) => el.removeAttribute("id"));
    dialog.append(close, picture);
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
    close.focus();
  }

  document.addEventListener("click", (event) => {
    const target = event.target.closest?.("figure.autograd-graph > .graph-full, figure.autograd-graph > svg");
    const figure = target?.closest("figure");
    if (figure && !figure.querySelector(":scope > .graph-full")?.hidden) open(figure);
  });
  if (typeof document$ !== "undefined") document$.subscribe(mark);
  else document.addEventListener("DOMContentLoaded", mark);
  window.addEventListener("resize", mark);
})();
