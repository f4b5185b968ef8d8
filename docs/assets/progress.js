// Reading progress, kept in this browser only (localStorage): no server, no account.
// Completed chapters (the footer's button) are marked in the navigation and in the
// home page's chapter list; the last chapter page read is offered as "Continue" on the
// home page; "Reset progress" asks before it forgets. Works with Material's instant
// navigation: document$ fires on every page view.
(function () {
  const DONE = "training-step-docs:completed";
  const LAST = "training-step-docs:last";

  function read(key, fallback) {
    try {
      return JSON.parse(localStorage.getItem(key)) ?? fallback;
    } catch (err) {
      return fallback;
    }
  }
  const completed = () => new Set(read(DONE, []));
  // A chapter's id is its page's URL relative to the site's root (forward_pass/);
  // Material's __md_scope is that root.
  const root = () => (typeof __md_scope !== "undefined" ? __md_scope : new URL("/", location.href));
  const isChapter = (href, id) => new URL(href, location.href).pathname === new URL(id, root()).pathname;

  function remember() {
    const button = document.querySelector("[data-chapter-id]");
    if (!button) return;
    const title = document.querySelector(".md-content h1")?.textContent.trim() || document.title;
    localStorage.setItem(LAST, JSON.stringify({ id: button.dataset.chapterId, title, path: location.pathname }));
  }

  function markNavigation(done) {
    for (const link of document.querySelectorAll(".md-sidebar--primary a.md-nav__link[href]")) {
      const on = [...done].some((id) => isChapter(link.getAttribute("href"), id));
      let mark = link.querySelector(".nav-done");
      if (on && !mark) {
        mark = document.createElement("span");
        mark.className = "nav-done";
        mark.innerHTML = '<span aria-hidden="true">\u2713</span><span class="visually-hidden"> (complete)</span>';
        link.append(mark);
      } else if (!on && mark) {
        mark.remove();
      }
    }
  }

  function render() {
    const done = completed();
    for (const button of document.querySelectorAll("[data-chapter-complete]")) {
      const on = done.has(button.dataset.chapterComplete);
      button.setAttribute("aria-pressed", String(on));
      button.textContent = on ? "Chapter complete \u2713 (undo)" : "Mark this chapter complete";
    }
    markNavigation(done);
    const summary = document.querySelector("[data-progress-summary]");
    if (!summary) return;
    const chapters = JSON.parse(summary.dataset.progressSummary);
    const finished = chapters.filter((c) => done.has(c.id));
    summary.querySelector(".progress-count").textContent =
      `${finished.length} of ${chapters.length} chapters complete. Progress is kept in this browser, not on any server.`;
    for (const item of summary.querySelectorAll("[data-chapter]")) {
      item.querySelector(".chapter-done").hidden = !done.has(item.dataset.chapter);
    }
    const last = read(LAST, null);
    const known = last && chapters.find((c) => c.id === last.id);
    const next = known || chapters.find((c) => !done.has(c.id)) || chapters[0];
    const link = summary.querySelector("[data-progress-continue]");
    link.href = known ? last.path : next.href;
    link.textContent = known ? `Continue where you left off: ${last.title}` : `Start with chapter ${next.number}: ${next.title}`;
  }

  function confirming(on) {
    document.querySelector("[data-progress-reset]").hidden = on;
    document.querySelector("[data-progress-confirm]").hidden = !on;
    document.querySelector(on ? "[data-progress-reset-no]" : "[data-progress-reset]").focus();
  }

  document.addEventListener("click", (event) => {
    const toggle = event.target.closest("[data-chapter-complete]");
    if (toggle) {
      const done = completed();
      const id = toggle.dataset.chapterComplete;
      done.has(id) ? done.delete(id) : done.add(id);
      localStorage.setItem(DONE, JSON.stringify([...done].sort()));
      render();
    } else if (event.target.closest("[data-progress-reset]")) {
      confirming(true);
    } else if (event.target.closest("[data-progress-reset-yes]")) {
      localStorage.removeItem(DONE);
      localStorage.removeItem(LAST);
      render();
      confirming(false);
    } else if (event.target.closest("[data-progress-reset-no]")) {
      confirming(false);
    }
  });

  function view() {
    remember();
    render();
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(view);
  } else {
    document.addEventListener("DOMContentLoaded", view);
  }
})();
