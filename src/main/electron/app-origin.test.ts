import { describe, expect, it } from 'vitest';
import { AppOrigin } from './app-origin.js';

describe('the app origin', () => {
  it('is meshdesk://app for the built renderer, and covers any of its paths and hashes', () => {
    const origin = AppOrigin.of(undefined);
    expect(origin.entryUrl).toBe('meshdesk://app/index.html');
    expect(origin.contains('meshdesk://app/index.html#/proxies/default/web-1')).toBe(true);
    expect(origin.contains('meshdesk://app/assets/index.js')).toBe(true);
  });

  it('does not cover look-alikes: other hosts, schemes, ports or credentials', () => {
    const origin = AppOrigin.of(undefined);
    for (const url of ['meshdesk://app.evil/index.html', 'meshdesk://evil/', 'https://app/index.html', 'meshdesk://user@app/', 'file:///index.html', '', 'garbage']) {
      expect(origin.contains(url), url).toBe(false);
    }
    const dev = AppOrigin.of('http://localhost:5173');
    expect(dev.contains('http://localhost:5173/')).toBe(true);
    expect(dev.contains('http://localhost:5174/')).toBe(false);
    expect(dev.contains('http://127.0.0.1:5173/')).toBe(false);
  });

  it('accepts a dev server on loopback only', () => {
    expect(() => AppOrigin.of('https://example.com/')).toThrow(/loopback/);
    expect(() => AppOrigin.of('http://192.168.1.2:5173/')).toThrow(/loopback/);
    expect(() => AppOrigin.of('file:///tmp/index.html')).toThrow(/loopback/);
    expect(AppOrigin.of('http://127.0.0.1:5173/').entryUrl).toBe('http://127.0.0.1:5173/');
  });
});
