import { describe, expect, it } from 'vitest';
import { AppOrigin } from './app-origin.js';
import { APP_CONTENT_SECURITY_POLICY, contentSecurityPolicyListener, withContentSecurityPolicy } from './content-security-policy.js';

function directives(policy: string): Map<string, string[]> {
  return new Map(policy.split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
}

describe('the app content security policy', () => {
  it('runs scripts from the app only: no inline script, no eval, no plugins, no framing, no foreign connections', () => {
    const policy = directives(APP_CONTENT_SECURITY_POLICY);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(policy.get('connect-src')).toEqual(["'self'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(APP_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|\*/);
    for (const [name, values] of policy) {
      if (name !== 'style-src') expect(values, name).not.toContain("'unsafe-inline'");
    }
  });

  it('replaces whatever policy the response carried, whatever the header case', () => {
    const headers = withContentSecurityPolicy({ 'content-security-policy': ["default-src *"], 'Content-Type': ['text/html'] });
    expect(headers).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [APP_CONTENT_SECURITY_POLICY] });
  });

  it("sets the policy on the app's documents only", () => {
    const listener = contentSecurityPolicyListener(AppOrigin.of('http://localhost:5173'));
    const run = (url: string, resourceType: 'mainFrame' | 'script') => {
      let answer: Record<string, unknown> | undefined;
      listener({ url, resourceType, responseHeaders: { 'x-test': ['1'] } }, (response) => (answer = response.responseHeaders));
      return answer;
    };
    expect(run('http://localhost:5173/', 'mainFrame')).toMatchObject({ 'Content-Security-Policy': [APP_CONTENT_SECURITY_POLICY] });
    expect(run('http://localhost:5173/src/main.ts', 'script')).toEqual({ 'x-test': ['1'] });
    expect(run('https://example.com/', 'mainFrame')).toEqual({ 'x-test': ['1'] });
  });
});
