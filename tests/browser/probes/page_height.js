// A chapter page a reader holds in one sitting: at most `max` px tall at the tour's
// width, its collapsible boxes opened (a reader opens them), its set-up folds left
// closed (as drawn), and its generated "How this page was checked" box too (a record
// of how the page was checked, not part of the reading). Pages outside the chapters (no ".chapter-place") are not
// measured. Put back as it was afterwards. Returns [height] or [].
(max) => {
  if (!document.querySelector(".chapter-place")) return [];
  const closed = [...document.querySelectorAll(".md-content details:not([open]):not(.checked)")];
  closed.forEach((d) => (d.open = true));
  const height = Math.round(document.documentElement.scrollHeight);
  closed.forEach((d) => (d.open = false));
  return height > max ? [height] : [];
}
