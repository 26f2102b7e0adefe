import type { Page } from 'playwright-core';

/**
 * Text that does not fit its box, described: for every element `boxSelector` matches, each of its
 * text's line boxes (a Range's client rects, so what is drawn, not what the layout promised) must lie
 * inside the box and inside every ancestor between them that clips; each element `wholeSelector`
 * matches inside it (a figure, a badge) must be drawn on one line ("64.3 / ms" is not a figure).
 */
export async function textOutsideItsBox(page: Page, boxSelector: string, wholeSelector = ''): Promise<{ boxes: number; problems: string[] }> {
  const expression = `(() => {
    const problems = [];
    const boxes = [...document.querySelectorAll(${JSON.stringify(boxSelector)})].filter((box) => box.getClientRects().length > 0);
    const name = (element) => (element.getAttribute('data-cell') || element.getAttribute('data-strategy') && element.getAttribute('data-strategy') + '@' + element.getAttribute('data-expiration') || element.className || element.tagName);
    for (const box of boxes) {
      const outer = box.getBoundingClientRect();
      const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent.trim() || node.parentElement.getClientRects().length === 0) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const limits = [outer];
        for (let parent = node.parentElement; parent && parent !== box; parent = parent.parentElement) {
          if (getComputedStyle(parent).overflowX !== 'visible') limits.push(parent.getBoundingClientRect());
        }
        for (const line of range.getClientRects()) {
          if (line.width === 0) continue;
          const limit = limits.find((each) => line.left < each.left - 0.5 || line.right > each.right + 0.5 || line.top < each.top - 0.5 || line.bottom > each.bottom + 0.5);
          if (limit) {
            problems.push(name(box) + ': "' + node.textContent.trim().slice(0, 30) + '" drawn at ' + Math.round(line.left) + '..' + Math.round(line.right) + ' × ' + Math.round(line.top) + '..' + Math.round(line.bottom) + ', its box is ' + Math.round(limit.left) + '..' + Math.round(limit.right) + ' × ' + Math.round(limit.top) + '..' + Math.round(limit.bottom));
            break;
          }
        }
      }
      const whole = ${JSON.stringify(wholeSelector)};
      for (const element of whole ? box.querySelectorAll(whole) : []) {
        const range = document.createRange();
        range.selectNodeContents(element);
        const tops = new Set([...range.getClientRects()].filter((line) => line.width > 0).map((line) => Math.round(line.top)));
        if (tops.size > 1) problems.push(name(box) + ': "' + element.textContent.trim() + '" wraps onto ' + tops.size + ' lines');
        if (element.scrollWidth > element.clientWidth + 1 && getComputedStyle(element).overflowX !== 'visible') problems.push(name(box) + ': "' + element.textContent.trim() + '" is cut (' + element.scrollWidth + ' px in ' + element.clientWidth + ')');
      }
    }
    return JSON.stringify({ boxes: boxes.length, problems });
  })()`;
  return JSON.parse((await page.evaluate(expression)) as string) as { boxes: number; problems: string[] };
}
