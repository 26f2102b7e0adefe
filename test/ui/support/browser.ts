import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium: playwright-core drives it, nothing is downloaded. */
export const CHROMIUM = process.env.MESHDESK_CHROMIUM ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface UiPage {
  page: Page;
  context: BrowserContext;
  /** Console errors, page errors and failed requests seen so far, in order. */
  errors: string[];
  /**
   * Errors the test expects (a proxy with no configuration answers 404 to the detail that asks for
   * it): left out of the check after the page closes, whenever the page logged them.
   */
  expected: ((error: string) => boolean)[];
}

/** Chromium's line for a request answered 404: what a page asking for something that is not there logs. */
export const NOT_FOUND = (error: string): boolean => error.includes('status of 404');

/**
 * A fresh browser context on the core's UI at `hash` (`#/proxies`), in the given colour scheme.
 * Everything the page reports as an error is collected, so a test can require there is none.
 */
export async function openUi(
  browser: Browser,
  apiUrl: string,
  { hash = '#/proxies', colorScheme = 'light' as 'light' | 'dark', viewport = { width: 1440, height: 900 } } = {},
): Promise<UiPage> {
  const context = await browser.newContext({ colorScheme, viewport, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    // The event stream is cut when the page or core closes, and a reload cancels what is in flight
    // (net::ERR_ABORTED): neither is the page's fault.
    const reason = request.failure()?.errorText ?? '';
    if (!request.url().endsWith('/events') && reason !== 'net::ERR_ABORTED') errors.push(`request failed: ${request.url()} ${reason}`);
  });
  await page.goto(`${apiUrl}/gui/${hash}`);
  return { page, context, errors, expected: [] };
}

// Read from the page as expressions: the node-side tsconfig has no DOM types, and needs none.

/** `#/proxies/default.web-1` */
export function hashOf(page: Page): Promise<string> {
  return page.evaluate('location.hash') as Promise<string>;
}

/** The theme in force (`light` or `dark`), as the page set it on <html>. */
export function themeOf(page: Page): Promise<string | undefined> {
  return page.evaluate('document.documentElement.dataset.theme') as Promise<string | undefined>;
}

/** The accessible label of the focused element. */
export function focusedLabel(page: Page): Promise<string | null> {
  return page.evaluate("document.activeElement?.getAttribute('aria-label') ?? null") as Promise<string | null>;
}
