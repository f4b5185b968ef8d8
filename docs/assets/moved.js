// A link to a heading that moved to a sub-page when its chapter was split
// (/memory/#activation-checkpointing) goes on to that sub-page's heading. The map is
// on the chapter's first page (overrides/partials/moved-anchors.html, computed by
// sitelib/site/anchors.py). Checked by tests/browser/test_navigation.py.
(function () {
  function follow() {
    const id = decodeURIComponent(location.hash.slice(1));
    const map = document.getElementById("moved-anchors");
    if (!id || !map || document.getElementById(id)) return;
    const page = JSON.parse(map.dataset.anchors || "{}")[id];
    if (page) location.replace(new URL(page, location.href).pathname + "#" + encodeURIComponent(id));
  }
  // Material's document$ emits on the first load and after each instant navigation.
  if (window.document$) window.document$.subscribe(() => setTimeout(follow));
  else document.addEventListener("DOMContentLoaded", follow);
  window.addEventListener("hashchange", follow);
})();
