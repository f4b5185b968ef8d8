// Printed output drawn as output: every line of a code block that is printed output
// (it starts with #>) carries the output marker, its text is drawn in another colour
// than a comment and on another background than the code, and each run of output
// lines is announced (a label for screen readers). Returns ["problem", ...].
() => {
  const problems = [];
  const colour = (el) => getComputedStyle(el).color;
  const background = (el) => getComputedStyle(el).backgroundColor;
  const probe = document.createElement("span");
  probe.className = "c1";
  // a chapter's block (pre > code), a notebook's cell (mkdocs-jupyter: a bare pre)
  for (const code of document.querySelectorAll(".md-content .highlight pre > code, .md-content .highlight-ipynb > pre")) {
    const title = code.closest(".highlight").querySelector(".filename")?.textContent || "a block";
    const lines = [...code.children].flatMap((c) => (c.classList.contains("fold") ? [...c.querySelectorAll(":scope > .fold-body > span")] : [c]));
    let previousOutput = false;
    for (const line of lines) {
      const text = line.textContent.trimStart().replace(/^Output: /, "").trim();
      const output = text.startsWith("#>");
      const marker = line.querySelector(".go-Marker");
      if (output && !marker) problems.push(`${title}: "${text.slice(0, 40)}" is output drawn as code`);
      if (marker && output) {
        const out = line.querySelector(".go") ? line.querySelector(".go:not(.go-Marker):not(.go-Label)") : null;
        code.append(probe);
        if (out && colour(out) === colour(probe)) problems.push(`${title}: output drawn in the comment colour`);
        if (background(line) === background(code) || background(line) === "rgba(0, 0, 0, 0)") {
          problems.push(`${title}: output drawn on the code's own background`);
        }
        probe.remove();
        if (!previousOutput && !line.querySelector(".go-Label")) problems.push(`${title}: output not announced`);
      }
      previousOutput = output;
    }
  }
  return [...new Set(problems)];
}
