// "Copy train.py": a link to a script the site serves whole (hooks/downloads.py),
// marked { .copy-file } in the page. With JavaScript, a click copies the file's text
// (fetched from this site, on the click) and says so in Material's "Copied to
// clipboard" note, as a code block's copy button does; without it, or where the
// clipboard refuses, the link opens the file. One listener on the document, so it
// works after an instant navigation too. Checked by tests/browser/test_copy.py.
(function () {
  document.addEventListener("click", async (event) => {
    const link = event.target.closest && event.target.closest("a.copy-file");
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey) return;
    event.preventDefault();
    try {
      const response = await fetch(link.href);
      if (!response.ok) throw new Error(`${link.href}: ${response.status}`);
      await navigator.clipboard.writeText(await response.text());
      if (window.alert$) window.alert$.next("Copied to clipboard");
    } catch (error) {
      console.warn("copy-file:", error);
      location.href = link.href;
    }
  });
})();
