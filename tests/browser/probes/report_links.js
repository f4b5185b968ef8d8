// Every "Report a problem" link on the page: [{href, file}], file being the title of
// the code block the link sits under (null for the page's own link); and how many
// code blocks show a Python file (their title ends in .py).
() => ({
  links: [...document.querySelectorAll(".md-content a, main a")]
    .filter((a) => a.textContent.trim().startsWith("Report a problem"))
    .map((a) => {
      const block = a.closest(".highlight");
      const title = block && block.querySelector(".filename");
      return { href: a.href, file: block ? (title ? title.textContent.trim() : "") : null };
    })
    .filter((link, i, all) => all.findIndex((l) => l.href === link.href && l.file === link.file) === i),
  pyBlocks: [...document.querySelectorAll(".highlight > .filename")].filter((t) =>
    t.textContent.trim().endsWith(".py"),
  ).length,
})
