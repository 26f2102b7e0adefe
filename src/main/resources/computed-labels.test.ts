import { describe, expect, it } from 'vitest';
import type { DataplaneSpec, ResourceInput } from '../../shared/resources.js';
import { computeLabels } from './computed-labels.js';

const dataplane = (labels: Record<string, string>, networking: Partial<DataplaneSpec['networking']> = {}): ResourceInput => ({
  type: 'Dataplane',
  mesh: 'payments',
  name: 'web-1',
  labels,
  spec: { networking: { address: '127.0.0.1', ...networking } },
});

describe("the labels Kuma computes on a write (pkg/core/resources/labels)", () => {
  it('adds mesh, origin, zone, env and proxy type, keeping the ones given except the proxy type', () => {
    expect(computeLabels(dataplane({ team: 'a', 'kuma.io/proxy-type': 'gateway' }), 'zone-1')).toEqual({
      team: 'a',
      'kuma.io/mesh': 'payments',
      'kuma.io/origin': 'zone',
      'kuma.io/zone': 'zone-1',
      'kuma.io/env': 'universal',
      'kuma.io/proxy-type': 'sidecar',
    });
    expect(computeLabels(dataplane({}, { gateway: { tags: { 'kuma.io/service': 'edge' } } }), 'zone-1')['kuma.io/proxy-type']).toBe('gateway');
  });

  it('gives a resource of global origin no zone or env, and a Mesh nothing', () => {
    expect(computeLabels(dataplane({ 'kuma.io/origin': 'global' }), 'zone-1')).toEqual({
      'kuma.io/mesh': 'payments',
      'kuma.io/origin': 'global',
      'kuma.io/proxy-type': 'sidecar',
    });
    expect(computeLabels({ type: 'Mesh', mesh: '', labels: { team: 'a' }, spec: {} }, 'zone-1')).toEqual({ team: 'a' });
  });

  it('marks zone ingress and egress listeners while the Dataplane has them, and drops the marks when it no longer does', () => {
    const withIngress = computeLabels(dataplane({}, { listeners: [{ type: 'ZoneIngress', port: 10001 }] }), 'zone-1');
    expect(withIngress['kuma.io/listener-zoneingress']).toBe('enabled');
    expect(withIngress).not.toHaveProperty('kuma.io/listener-zoneegress');
    expect(computeLabels(dataplane(withIngress), 'zone-1')).not.toHaveProperty('kuma.io/listener-zoneingress');
  });
});
