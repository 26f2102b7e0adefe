import type { OnHeadersReceivedListenerDetails, HeadersReceivedResponse } from './electron-types.js';
import { GUI_CONTENT_SECURITY_POLICY } from '../api/static-files.js';
import type { AppOrigin } from './app-origin.js';

/**
 * The app's pages get the same policy as the UI served in headless mode (one renderer, one set of
 * needs): scripts from the app only, no inline script, no eval, no plugins, no framing.
 */
export const APP_CONTENT_SECURITY_POLICY = GUI_CONTENT_SECURITY_POLICY;

/** Response headers with our policy in place of any the server sent (header names are case-insensitive). */
export function withContentSecurityPolicy(headers: Record<string, string[]> = {}): Record<string, string[]> {
  const kept = Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-security-policy');
  return { ...Object.fromEntries(kept), 'Content-Security-Policy': [APP_CONTENT_SECURITY_POLICY] };
}

/**
 * For `session.webRequest.onHeadersReceived`: documents of the app get the policy as a header, which
 * (unlike the page's meta tag) applies before the first byte of the page runs. Covers the dev
 * server; the `meshdesk://` protocol handler sets the same header itself.
 */
export function contentSecurityPolicyListener(origin: AppOrigin) {
  return (
    details: Pick<OnHeadersReceivedListenerDetails, 'url' | 'resourceType' | 'responseHeaders'>,
    callback: (response: HeadersReceivedResponse) => void,
  ): void => {
    const isDocument = details.resourceType === 'mainFrame' || details.resourceType === 'subFrame';
    callback({
      responseHeaders: isDocument && origin.contains(details.url) ? withContentSecurityPolicy(details.responseHeaders) : details.responseHeaders,
    });
  };
}
