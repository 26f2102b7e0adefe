import type { Page } from 'playwright-core';

/** Replaces the whole editor text, as pasting would (no auto-indent). */
export async function setEditorText(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
}
