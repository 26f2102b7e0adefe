import { describe, expect, it } from 'vitest';
import { notAppliedFields } from './not-applied.js';

const outbound = [
  { port: 10001, backendRef: { kind: 'MeshService', name: 'backend', port: 80 } },
  { port: 10002, backendRef: { kind: 'MeshExternalService', name: 'ext' } },
  { port: 10003, backendRef: { kind: 'MeshMultiZoneService', name: 'multi', port: 80 } },
];

describe('backendRef outbounds not applied', () => {
  it('lists MeshExternalService and MeshMultiZoneService refs, not MeshService ones', () => {
    expect(notAppliedFields('Dataplane', { networking: { address: '10.0.0.1', outbound } })).toEqual([
      'networking.outbound[1].backendRef',
      'networking.outbound[2].backendRef',
    ]);
  });

  it('lists every backendRef of a transparent proxy, whose networking.outbound Kuma ignores', () => {
    const networking = { address: '10.0.0.1', outbound, transparentProxying: { redirectPortOutbound: 15001 } };
    expect(notAppliedFields('Dataplane', { networking })).toEqual([
      'networking.transparentProxying',
      'networking.outbound[0].backendRef',
      'networking.outbound[1].backendRef',
      'networking.outbound[2].backendRef',
    ]);
  });
});
