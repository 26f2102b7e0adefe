import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { eventually } from '../../support/eventually.js';

/** Replaces the whole editor text, as pasting would (no auto-indent). */
export async function setEditorText(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
}

/**
 * The whole document of the CodeMirror editor in `scope` (a page: its only editor), read from the
 * EditorView's state, not from the lines it has drawn: CodeMirror draws only what is in view, so
 * text read off the screen misses lines whenever the editor has not drawn them all (long files,
 * or a busy machine).
 */
export async function editorText(scope: Page | Locator): Promise<string> {
  const content = scope.locator('.cm-content');
  await content.waitFor();
  // What EditorView.findFromDOM does: the content element carries its view tile, whose root knows the view.
  const text = await content.evaluate(
    (element) => (element as unknown as { cmTile?: { root?: { view?: { state: { doc: { toString(): string } } } } } }).cmTile?.root?.view?.state.doc.toString(),
  );
  if (text === undefined) throw new Error('the .cm-content element carries no CodeMirror view (cmTile.root.view): has @codemirror/view changed how findFromDOM finds it?');
  return text;
}

/** Waits until the editor in `scope` holds `expected` (a substring or a pattern) in its document; returns the document. */
export async function waitForEditorText(scope: Page | Locator, expected: string | RegExp): Promise<string> {
  let text = '';
  await eventually(async () => {
    text = await editorText(scope);
    if (typeof expected === 'string') expect(text).toContain(expected);
    else expect(text).toMatch(expected);
  });
  return text;
}
