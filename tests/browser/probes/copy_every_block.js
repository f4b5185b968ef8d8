// Copy every code block the way a reader does: reveal it (open its collapsed block,
// select its tab), scroll it into view (Material sets a block up as it appears:
// content.lazy), wait for its copy button, click it, read the clipboard. One block
// after another: [{title, text}] or {title, missing: true}.
async () => {
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  const reveal = (node) => {
    for (let el = node; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") el.open = true;
      if (el.parentElement && el.parentElement.classList.contains("tabbed-content")) {
        const set = el.closest(".tabbed-set");
        const index = [...el.parentElement.children].indexOf(el);
        set.querySelectorAll(":scope > input")[index].click();
      }
    }
  };
  const copied = [];
  for (const code of document.querySelectorAll(".md-content pre > code")) {
    reveal(code);
    code.scrollIntoView({ block: "center" });
    const find = () => code.parentElement.querySelector(
      ":scope > nav > button.md-code__button[data-md-type=copy]");
    let button = find();  // set up already when it was in view before
    for (let t = 0; t < 120 && !button; t++) { await frame(); button = find(); }
    const title = code.closest(".highlight")?.querySelector(".filename")?.textContent || "";
    if (!button) { copied.push({ title, missing: true }); continue; }
    await navigator.clipboard.writeText("");
    button.click();
    let text = "";
    for (let t = 0; t < 60 && !text; t++) {  // a clipboard write takes a task or two, not a frame
      text = await navigator.clipboard.readText();
      if (!text) await new Promise((resolve) => setTimeout(resolve, 4));
    }
    copied.push({ title, text });
  }
  return copied;
}
