import { describe, expect, it } from 'vitest';
import { compareByTargetRef, selectedInbounds, selectsProxy, sortByTargetRef, TargetRefError } from './matching.js';
import type { PolicySpec } from './policy.js';
import { dataplaneResource, policyResource } from './testing/resources.js';

const web = dataplaneResource(
  'web-1',
  [
    { port: 8080, name: 'http', tags: { 'kuma.io/service': 'web', version: 'v1' } },
    { port: 9090, address: '10.0.0.9', tags: { 'kuma.io/service': 'web-admin' } },
  ],
  { labels: { app: 'web', team: 'a' } },
);
const gateway = dataplaneResource('edge', [], { gateway: true });

function selects(spec: PolicySpec, dataplane = web, routes = [] as ReturnType<typeof policyResource>[]) {
  return selectedInbounds(policyResource('MeshTimeout', 'p', spec), dataplane, routes).inbounds;
}

describe('which inbounds a policy selects', () => {
  it('selects every inbound for Mesh, and for an omitted targetRef', () => {
    expect(selects({ targetRef: { kind: 'Mesh' } })).toEqual(['10.0.0.1:8080', '10.0.0.9:9090']);
    expect(selects({})).toEqual(['10.0.0.1:8080', '10.0.0.9:9090']);
  });

  it('honours proxyTypes', () => {
    expect(selects({ targetRef: { kind: 'Mesh', proxyTypes: ['Gateway'] } })).toEqual([]);
    expect(selects({ targetRef: { kind: 'Mesh', proxyTypes: ['Sidecar'] } })).toEqual(['10.0.0.1:8080', '10.0.0.9:9090']);
    expect(selects({ targetRef: { kind: 'MeshSubset', tags: {}, proxyTypes: ['Sidecar'] } }, gateway)).toEqual([]);
  });

  it('selects inbounds by their tags for MeshSubset, MeshService and MeshServiceSubset', () => {
    expect(selects({ targetRef: { kind: 'MeshSubset', tags: { version: 'v1' } } })).toEqual(['10.0.0.1:8080']);
    expect(selects({ targetRef: { kind: 'MeshService', name: 'web-admin' } })).toEqual(['10.0.0.9:9090']);
    expect(selects({ targetRef: { kind: 'MeshServiceSubset', name: 'web', tags: { version: 'v2' } } })).toEqual([]);
    expect(selects({ targetRef: { kind: 'MeshServiceSubset', name: 'web', tags: { version: 'v1' } } })).toEqual(['10.0.0.1:8080']);
  });

  it('selects a Dataplane by name or labels, and one inbound by sectionName (its name, else its port)', () => {
    expect(selects({ targetRef: { kind: 'Dataplane', name: 'web-1' } })).toEqual(['10.0.0.1:8080', '10.0.0.9:9090']);
    expect(selects({ targetRef: { kind: 'Dataplane', name: 'web-2' } })).toEqual([]);
    expect(selects({ targetRef: { kind: 'Dataplane', labels: { app: 'web', team: 'b' } } })).toEqual([]);
    expect(selects({ targetRef: { kind: 'Dataplane', labels: { app: 'web' }, sectionName: 'http' } })).toEqual(['10.0.0.1:8080']);
    expect(selects({ targetRef: { kind: 'Dataplane', sectionName: '9090' } })).toEqual(['10.0.0.9:9090']);
  });

  it('selects a delegated gateway, which has no inbounds, by its gateway tags', () => {
    const selection = (spec: PolicySpec) => selectsProxy(selectedInbounds(policyResource('MeshTimeout', 'p', spec), gateway, []));
    expect(selection({})).toBe(true);
    expect(selection({ targetRef: { kind: 'MeshService', name: 'edge' } })).toBe(true);
    expect(selection({ targetRef: { kind: 'MeshService', name: 'web' } })).toBe(false);
    expect(selection({ targetRef: { kind: 'Dataplane', name: 'edge' } })).toBe(true);
    expect(selection({ targetRef: { kind: 'Mesh', proxyTypes: ['Sidecar'] } })).toBe(false);
  });

  it('selects a sidecar without inbounds (a pure client) by what needs no tag', () => {
    const client = dataplaneResource('client-1', []);
    const selection = (spec: PolicySpec) => selectsProxy(selectedInbounds(policyResource('MeshTimeout', 'p', spec), client, []));
    expect(selection({})).toBe(true);
    expect(selection({ targetRef: { kind: 'MeshSubset', tags: {} } })).toBe(true);
    expect(selection({ targetRef: { kind: 'Dataplane', labels: {} } })).toBe(true);
    expect(selection({ targetRef: { kind: 'Dataplane', sectionName: 'http' } })).toBe(false);
    expect(selection({ targetRef: { kind: 'MeshService', name: 'client' } })).toBe(false);
    expect(selection({ targetRef: { kind: 'MeshSubset', tags: { version: 'v1' } } })).toBe(false);
    expect(selection({ targetRef: { kind: 'Mesh', proxyTypes: ['Gateway'] } })).toBe(false);
  });

  it('selects only its own namespace for a consumer policy, and only its own zone for a zone policy', () => {
    const inNamespace = dataplaneResource('web-ns', [{ port: 8080, tags: { 'kuma.io/service': 'web' } }], {
      labels: { 'k8s.kuma.io/namespace': 'shop', 'kuma.io/origin': 'zone', 'kuma.io/zone': 'east' },
    });
    const select = (labels: Record<string, string>) => selectedInbounds(policyResource('MeshTimeout', 'p', {}, labels), inNamespace, []).inbounds;
    expect(select({ 'kuma.io/policy-role': 'consumer', 'k8s.kuma.io/namespace': 'shop' })).toEqual(['10.0.0.1:8080']);
    expect(select({ 'kuma.io/policy-role': 'consumer', 'k8s.kuma.io/namespace': 'other' })).toEqual([]);
    expect(select({ 'kuma.io/origin': 'zone', 'kuma.io/zone': 'west' })).toEqual([]);
    expect(select({ 'kuma.io/origin': 'zone', 'kuma.io/zone': 'east' })).toEqual(['10.0.0.1:8080']);
    expect(select({ 'kuma.io/origin': 'zone', 'kuma.io/zone': 'west', 'kuma.io/policy-role': 'producer' })).toEqual(['10.0.0.1:8080']);
  });

  it('selects through a MeshHTTPRoute by the route own targetRef, and says when the route is missing', () => {
    const route = policyResource('MeshHTTPRoute', 'to-v2', { targetRef: { kind: 'MeshService', name: 'web-admin' } });
    expect(selects({ targetRef: { kind: 'MeshHTTPRoute', name: 'to-v2' } }, web, [route])).toEqual(['10.0.0.9:9090']);
    const synced = policyResource('MeshHTTPRoute', 'to-v2-4w55b97x', { targetRef: { kind: 'MeshService', name: 'web-admin' } }, { 'kuma.io/display-name': 'to-v2' });
    expect(selects({ targetRef: { kind: 'MeshHTTPRoute', name: 'to-v2' } }, web, [synced])).toEqual(['10.0.0.9:9090']);
    expect(() => selects({ targetRef: { kind: 'MeshHTTPRoute', name: 'gone' } })).toThrow(TargetRefError);
  });
});

describe('the order policies merge in', () => {
  it('goes from the least specific kind to the most specific', () => {
    const policies = [
      policyResource('MeshTimeout', 'by-route', { targetRef: { kind: 'MeshHTTPRoute', name: 'r' } }),
      policyResource('MeshTimeout', 'by-service', { targetRef: { kind: 'MeshService', name: 'web' } }),
      policyResource('MeshTimeout', 'by-subset', { targetRef: { kind: 'MeshSubset', tags: {} } }),
      policyResource('MeshTimeout', 'by-service-subset', { targetRef: { kind: 'MeshServiceSubset', name: 'web' } }),
      policyResource('MeshTimeout', 'by-dataplane', { targetRef: { kind: 'Dataplane' } }),
      policyResource('MeshTimeout', 'mesh', {}),
    ];
    expect(sortByTargetRef(policies).map(({ meta }) => meta.name)).toEqual([
      'mesh',
      'by-dataplane',
      'by-subset',
      'by-service',
      'by-service-subset',
      'by-route',
    ]);
  });

  it('puts Dataplane labels before name and no sectionName before sectionName', () => {
    const byName = policyResource('MeshTimeout', 'a-name', { targetRef: { kind: 'Dataplane', name: 'web-1' } });
    const byLabels = policyResource('MeshTimeout', 'z-labels', { targetRef: { kind: 'Dataplane', labels: { app: 'web' } } });
    const bySection = policyResource('MeshTimeout', 'a-section', { targetRef: { kind: 'Dataplane', sectionName: 'http' } });
    const all = policyResource('MeshTimeout', 'z-all', { targetRef: { kind: 'Dataplane' } });
    expect(compareByTargetRef(byLabels, byName)).toBeLessThan(0);
    expect(compareByTargetRef(byName, byLabels)).toBeGreaterThan(0);
    expect(sortByTargetRef([bySection, all]).map(({ meta }) => meta.name)).toEqual(['z-all', 'a-section']);
  });

  it('orders by origin and role labels, then by name descending so that the smaller name merges last and wins', () => {
    const zone = policyResource('MeshTimeout', 'a', {}, { 'kuma.io/origin': 'zone' });
    const global = policyResource('MeshTimeout', 'b', {}, { 'kuma.io/origin': 'global' });
    const consumer = policyResource('MeshTimeout', 'c', {}, { 'kuma.io/policy-role': 'consumer' });
    const system = policyResource('MeshTimeout', 'd', {});
    const sameButName = policyResource('MeshTimeout', 'e', {});
    expect(sortByTargetRef([zone, global]).map(({ meta }) => meta.name)).toEqual(['b', 'a']);
    expect(sortByTargetRef([consumer, system]).map(({ meta }) => meta.name)).toEqual(['d', 'c']);
    expect(sortByTargetRef([system, sameButName]).map(({ meta }) => meta.name)).toEqual(['e', 'd']);
    // A display name label (a policy synced from Kubernetes) is what counts.
    const displayed = policyResource('MeshTimeout', 'a-hash', {}, { 'kuma.io/display-name': 'z' });
    expect(sortByTargetRef([system, displayed]).map(({ meta }) => meta.name)).toEqual(['a-hash', 'd']);
  });
});
