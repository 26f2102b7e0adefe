import { describe, expect, it } from 'vitest';
import { derived } from './derived.js';

describe('derived', () => {
  it('derives once per resource and rule, so proxies sharing both share the result', () => {
    const cluster = { name: 'backend' };
    const rule = { conf: { connectionTimeout: '1s' } };
    let calls = 0;
    const derive = () => ({ ...cluster, connect_timeout: rule.conf.connectionTimeout, call: ++calls });

    const first = derived(cluster, rule, derive);

    expect(derived(cluster, rule, derive)).toBe(first);
    expect(derived(cluster, { ...rule }, derive)).not.toBe(first);
    expect(derived({ ...cluster }, rule, derive)).not.toBe(first);
    expect(calls).toBe(3);
  });
});
