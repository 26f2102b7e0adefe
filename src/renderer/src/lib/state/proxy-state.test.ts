import { describe, expect, it } from 'vitest';
import type { ProxyStatus } from '../../../../shared/api-types.js';
import { describeState } from './proxy-state.js';

const configured: ProxyStatus = {
  proxyId: 'default.web-1',
  online: true,
  state: 'configured',
  since: Date.UTC(2026, 0, 1),
  connections: 1,
  stream: { id: 7, peer: '127.0.0.1:5000', openedAt: Date.UTC(2026, 0, 1) },
  protocol: 'sotw',
  types: [],
};
const reason = 'cannot encode cds resource "backend": connect_timeout: …; the proxy keeps the one sent before';

// Issue 27: a proxy no update reached was shown "online".
describe('a configured proxy whose configuration is not the latest', () => {
  it('is shown stale, with the reason', () => {
    const stale = { ...configured, stale: { since: Date.UTC(2026, 0, 1, 0, 5), reason } };
    expect(describeState(configured)).toMatchObject({ label: 'online', tone: 'ok' });
    expect(describeState(stale)).toEqual({ label: 'stale', title: expect.stringContaining(reason), tone: 'bad' });
  });
});
