/** The privileged scheme the built renderer is served from (see app-protocol.ts). */
export const APP_SCHEME = 'meshdesk';
export const APP_HOST = 'app';

/**
 * Where the app's own pages come from: `meshdesk://app/` for the built renderer, or electron-vite's
 * dev server during `npm run dev`. Navigation, IPC senders and the CSP are all judged against it.
 * A custom scheme rather than file:// gives the pages an origin of their own: under file://,
 * 'self' and "our page" would cover every file on the disk.
 */
export class AppOrigin {
  readonly entryUrl: string;
  readonly #origin: URL;

  private constructor(entryUrl: string) {
    this.entryUrl = entryUrl;
    this.#origin = new URL(entryUrl);
  }

  /** The dev server is honoured only on loopback: an environment variable must not point the app at a remote site. */
  static of(devServerUrl: string | undefined): AppOrigin {
    if (devServerUrl === undefined) return new AppOrigin(`${APP_SCHEME}://${APP_HOST}/index.html`);
    const url = new URL(devServerUrl);
    if (url.protocol !== 'http:' || !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
      throw new Error(`ELECTRON_RENDERER_URL must be an http:// loopback address (the dev server), got "${devServerUrl}"`);
    }
    return new AppOrigin(url.href);
  }

  /** True for a URL on the app's own scheme, host and port (any path, query or hash). */
  contains(url: string): boolean {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    return parsed.protocol === this.#origin.protocol && parsed.host === this.#origin.host && parsed.username === '' && parsed.password === '';
  }
}
