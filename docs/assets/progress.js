// Chapter progress, kept in this browser only (localStorage): no server, no account.
// Works with Material's instant navigation: document$ fires on every page view.
(function () {
  const KEY = "training-step-docs:completed";

  function load() {
    try {
      return new Set(JSON.parse(localStorage.getItem(KEY) || "[]"));
    } catch (err) {
      return new Set();
    }
  }

  function save(done) {
    localStorage.setItem(KEY, JSON.stringify([...done].sort()));
  }

  function render() {
    const done = load();
    for (const button of document.querySelectorAll("[data-chapter-complete]")) {
      const on = done.has(button.dataset.chapterComplete);
      button.setAttribute("aria-pressed", String(on));
      button.textContent = on ? "Chapter complete \u2713 (undo)" : "Mark this chapter complete";
    }
    const summary = document.querySelector("[data-progress-summary]");
    if (!summary) return;
    const chapters = JSON.parse(summary.dataset.progressSummary);
    const finished = chapters.filter((c) => done.has(c.id));
    summary.querySelector(".progress-count").textContent =
      `${finished.length} of ${chapters.length} chapters complete`;
    const list = summary.querySelector(".progress-list");
    list.replaceChildren(
      ...finished.map((c) => {
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = c.href;
        link.textContent = c.title;
        item.append(link);
        return item;
      })
    );
  }

  document.addEventListener("click", (event) => {
    const toggle = event.target.closest("[data-chapter-complete]");
    if (toggle) {
      const done = load();
      const id = toggle.dataset.chapterComplete;
      done.has(id) ? done.delete(id) : done.add(id);
      save(done);
      render();
    } else if (event.target.closest("[data-progress-reset]")) {
      localStorage.removeItem(KEY);
      render();
    }
  });

  if (typeof document$ !== "undefined") {
    document$.subscribe(render);
  } else {
    document.addEventListener("DOMContentLoaded", render);
  }
})();
