// The site's run-time accessibility fixes, all in one place (checked by axe in
// tests/browser/test_accessibility.py): accessible names for the search dialog and
// for elements Material creates in the browser (code-block toolbars, annotation
// markers), notebook code cells, and keyboard access to code blocks that scroll.
(function () {
  function label() {
    const search = document.querySelector('.md-search[role="dialog"]:not([aria-label])');
    search?.setAttribute("aria-label", search.querySelector(".md-search__input")?.getAttribute("aria-label") || "Search");
    document.querySelectorAll("nav.md-code__nav:not([aria-label])").forEach((nav, i) => {
      const title = nav.closest(".highlight")?.querySelector(".filename")?.textContent;
      nav.setAttribute("aria-label", `Code block ${i + 1}${title ? ` (${title})` : ""} actions`);
    });
    document.querySelectorAll('a[href*="_annotation_"]:not([aria-label])').forEach((a) => {
      a.setAttribute("aria-label", `Annotation ${a.textContent.trim() || ""}`.trim());
    });
    // A notebook cell's code is marked without measuring it: measuring would lay out
    // every cell the page leaves unrendered until it nears the screen (notebook.css).
    document.querySelectorAll(".jupyter-wrapper .highlight-ipynb pre > code:not([tabindex])").forEach((el) => {
      el.setAttribute("tabindex", "0");
    });
  }
  // Material builds these nodes after load and on every instant navigation; label
  // them at most once per frame, however many nodes change.
  let queued = false;
  const observer = new MutationObserver(() => {
    if (!queued) {
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        label();
      });
    }
  });
  observer.observe(document.documentElement, { childList: true, subtree: true });
  label();

  // A code block that scrolls sideways must be reachable by keyboard (axe:
  // scrollable-region-focusable). Material marks a block as it sets it up, and with
  // content.lazy it sets up a block only once it scrolls into view; this marks the
  // others in one pass (all reads, then all writes) once the browser is idle.
  function markScrollable() {
    const blocks = document.querySelectorAll(".md-content pre > code:not([tabindex])");
    const wide = [...blocks].filter((code) => code.scrollWidth > code.clientWidth);
    wide.forEach((code) => code.setAttribute("tabindex", "0"));
  }
  const idle = (fn) =>
    window.requestIdleCallback ? requestIdleCallback(fn, { timeout: 1000 }) : setTimeout(fn, 200);
  if (typeof document$ !== "undefined") {
    document$.subscribe(() => idle(markScrollable));
  } else {
    document.addEventListener("DOMContentLoaded", () => idle(markScrollable));
  }
  window.addEventListener("resize", () => idle(markScrollable));
})();
