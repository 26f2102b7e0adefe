import { describe, expect, it } from 'vitest';
import type { ProxyStatus } from '../../../shared/api-types.js';
import { proxyStateLine } from './proxy-state-line.js';

describe('proxyStateLine', () => {
  // Issue 27: a proxy no update reached was printed "configured".
  it('says since when and why a configured proxy is stale', () => {
    const reason = 'cannot encode cds resource "backend": connect_timeout: …; the proxy keeps the one sent before';
    const status: ProxyStatus = {
      proxyId: 'default.web-1',
      online: true,
      state: 'configured',
      stale: { since: Date.UTC(2026, 0, 1, 0, 5), reason },
      since: Date.UTC(2026, 0, 1),
      connections: 1,
      stream: { id: 7, peer: '127.0.0.1:5000', openedAt: Date.UTC(2026, 0, 1) },
      protocol: 'sotw',
      types: [],
    };
    expect(proxyStateLine(status)).toBe(`proxy default.web-1 (stream 7 from 127.0.0.1:5000): configured, but stale since 2026-01-01T00:05:00.000Z because ${reason}`);
    const { stale: _stale, ...fresh } = status;
    expect(proxyStateLine(fresh)).toBe('proxy default.web-1 (stream 7 from 127.0.0.1:5000): configured');
  });
});
