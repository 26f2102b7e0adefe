import { describe, expect, it } from 'vitest';
import { proxyFeaturesFromNode, proxyKindFromNode, proxyWorkDirFromNode } from './proxy.js';

describe('proxyKindFromNode', () => {
  it('recognises gRPC clients by their user agent', () => {
    expect(proxyKindFromNode({ user_agent_name: 'gRPC Node Pure JS' })).toBe('grpc');
    expect(proxyKindFromNode({ user_agent_name: 'gRPC C-core linux' })).toBe('grpc');
  });

  it('takes anything else for Envoy', () => {
    expect(proxyKindFromNode({ user_agent_name: 'envoy' })).toBe('envoy');
    expect(proxyKindFromNode({})).toBe('envoy');
  });

  it('lets the meshdesk.proxyType metadata override the user agent', () => {
    expect(proxyKindFromNode({ user_agent_name: 'envoy', metadata: { 'meshdesk.proxyType': 'grpc' } })).toBe('grpc');
    expect(proxyKindFromNode({ user_agent_name: 'gRPC Go', metadata: { 'meshdesk.proxyType': 'envoy' } })).toBe('envoy');
  });

  it('refuses an unknown meshdesk.proxyType instead of guessing', () => {
    expect(() => proxyKindFromNode({ metadata: { 'meshdesk.proxyType': 'linkerd' } })).toThrow(
      'node metadata "meshdesk.proxyType" must be "envoy" or "grpc", got "linkerd"',
    );
  });
});

describe('proxyFeaturesFromNode', () => {
  it("reads the features kuma-dp lists in its node metadata", () => {
    expect(proxyFeaturesFromNode({ metadata: { features: ['feature-reuse-port', 'feature-delta-grpc'] } })).toEqual(
      new Set(['feature-reuse-port', 'feature-delta-grpc']),
    );
  });

  it('gives none to a node without a list of strings, as Kuma does', () => {
    expect(proxyFeaturesFromNode({})).toEqual(new Set());
    expect(proxyFeaturesFromNode({ metadata: { features: 'feature-reuse-port' } })).toEqual(new Set());
    expect(proxyFeaturesFromNode({ metadata: { features: ['feature-reuse-port', 7] } })).toEqual(new Set(['feature-reuse-port']));
  });
});

describe('proxyWorkDirFromNode', () => {
  it("reads kuma-dp's work directory from the node metadata Kuma's bootstrap writes", () => {
    expect(proxyWorkDirFromNode({ metadata: { workdir: '/tmp/kuma-dp' } })).toBe('/tmp/kuma-dp');
  });

  it('gives none to a proxy without kuma-dp', () => {
    expect(proxyWorkDirFromNode({})).toBeUndefined();
    expect(proxyWorkDirFromNode({ metadata: { workdir: '' } })).toBeUndefined();
    expect(proxyWorkDirFromNode({ metadata: { workdir: 7 } })).toBeUndefined();
  });
});
