// Punctuation right after an inline formula stays on the formula's line.
// Returns ["problem", ...].
() => {
  const problems = [];
  const content = document.querySelector(".md-content");
  for (const math of content ? content.querySelectorAll('math:not([display="block"])') : []) {
    if (!math.getClientRects().length) continue;
    let next = math;
    while (next && !next.nextSibling) next = next.parentNode;
    next = next?.nextSibling;
    while (next && next.nodeType === Node.ELEMENT_NODE) next = next.firstChild;
    if (!next || next.nodeType !== Node.TEXT_NODE || !/^[.,;:!?)\]]/.test(next.textContent)) continue;
    const range = document.createRange();
    range.setStart(next, 0);
    range.setEnd(next, 1);
    const mark = range.getBoundingClientRect();
    const formula = math.getBoundingClientRect();
    if (mark.top >= formula.bottom - 1) {
      problems.push(`"${next.textContent[0]}" after the formula ${math.textContent.trim().slice(0, 30)} starts a new line`);
    }
  }
  return problems;
}
