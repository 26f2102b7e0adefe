import { describe, expect, it } from 'vitest';
import { proxyUserAgentFromNode } from '../../xds/generate/proxy.js';
import { ringHashCrashReason } from './c-core-ring-hash.js';

describe('which gRPC clients ring hash would crash', () => {
  it('guards C-core up to release 1.51 (core 29) and C-core of an unreadable version, nobody else', () => {
    const reason = (name: string, version: string) => ringHashCrashReason({ name, version });
    expect(reason('gRPC C-core linux', 'C-core 29.0.0 Python 1.51.1')).toMatch(/^gRPC C-core 29\.0\.0 Python 1\.51\.1 crashes .* round robin$/);
    expect(reason('gRPC C-core linux', 'C-core 24.0.0')).toBeDefined();
    expect(reason('gRPC C-core linux', '')).toMatch(/^gRPC C-core of unknown version \(""\)/);
    expect(reason('gRPC C-core linux', 'C-core 30.0.0 Python 1.52.0')).toBeUndefined();
    expect(reason('gRPC C-core linux', 'C-core 45.1.0')).toBeUndefined();
    expect(reason('gRPC Node Pure JS', '1.14.0')).toBeUndefined();
    expect(reason('envoy', '')).toBeUndefined();
    expect(ringHashCrashReason(undefined)).toBeUndefined();
  });

  it("reads the node's user agent as bounded strings, and nothing from anything else", () => {
    expect(proxyUserAgentFromNode({ user_agent_name: 'gRPC C-core linux', user_agent_version: 'C-core 29.0.0 Python 1.51.1' })).toEqual({
      name: 'gRPC C-core linux',
      version: 'C-core 29.0.0 Python 1.51.1',
    });
    expect(proxyUserAgentFromNode({ user_agent_name: 'x'.repeat(10_000), user_agent_version: 42 })).toEqual({ name: 'x'.repeat(128), version: '' });
    expect(proxyUserAgentFromNode({ user_agent_name: { evil: true } })).toBeUndefined();
    expect(proxyUserAgentFromNode({})).toBeUndefined();
  });
});
