import { on } from 'svelte/events';
import { createSubscriber } from 'svelte/reactivity';

export const DEFAULT_PATH = '/proxies';

/**
 * Hash routing (`#/proxies/default.web-1/config`): works from a file:// page in the app and from
 * /gui/ in headless mode alike, and survives a reload. The hash is the only state: `path` and
 * `segments` read it, `go` writes it.
 */
export class HashRouter {
  readonly #subscribe = createSubscriber((update) => on(window, 'hashchange', update));

  get path(): string {
    this.#subscribe();
    const path = decodeURI(location.hash.replace(/^#/, ''));
    return path.startsWith('/') && path.length > 1 ? path : DEFAULT_PATH;
  }

  /** `['proxies', 'default.web-1', 'config']`; each segment decoded. */
  get segments(): string[] {
    return this.path.split('/').filter(Boolean).map(decodeURIComponent);
  }

  go(path: string): void {
    location.hash = path;
  }
}

/** `#/proxies/<id>/<tab>` with each segment encoded. */
export function href(...segments: string[]): string {
  return `#/${segments.map(encodeURIComponent).join('/')}`;
}

export const router = new HashRouter();
