// What "selects nothing" means, decided by the generator's matching over a MeshContext: the
// module a later analysis reuses, so each kind of reference is pinned here.
import { describe, expect, it } from 'vitest';
import type { DataplaneResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { dataplaneResource, meshResource, policyResource } from '../core/testing/resources.js';
import type { PolicySpec } from '../core/policy.js';
import { selectsNothingWarnings } from './selects-nothing.js';

const web = dataplaneResource('web-1', [{ port: 8080, tags: { 'kuma.io/service': 'web', version: 'v1' } }], { labels: { app: 'web' } });
// A pure client: it calls `billing`, which no Dataplane serves yet.
const client = {
  ...dataplaneResource('client-1', []),
  spec: { networking: { address: '10.0.0.2', outbound: [{ port: 10001, tags: { 'kuma.io/service': 'billing' } }] } },
} as DataplaneResource;
const route = policyResource('MeshHTTPRoute', 'web-route', { targetRef: { kind: 'Mesh' }, to: [] });
const context = buildMeshContext(meshResource(), [web, client], { policies: [route] });
const warningsFor = (spec: PolicySpec) => selectsNothingWarnings(policyResource('MeshTimeout', 'p', spec), context);

describe('selects nothing', () => {
  it('says nothing of a plain Mesh targetRef, or of refs that select something', () => {
    expect(warningsFor({ targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: {} }] })).toEqual([]);
    expect(warningsFor({ targetRef: { kind: 'Dataplane', labels: { app: 'web' } } })).toEqual([]);
    expect(warningsFor({ targetRef: { kind: 'MeshSubset', tags: { version: 'v1' } } })).toEqual([]);
    // Known by a Dataplane that calls it, though none serves it.
    expect(warningsFor({ to: [{ targetRef: { kind: 'MeshService', name: 'billing' }, default: {} }] })).toEqual([]);
    expect(warningsFor({ to: [{ targetRef: { kind: 'MeshHTTPRoute', name: 'web-route' }, default: {} }] })).toEqual([]);
  });

  it('names a top-level ref that selects no Dataplane, and a route that does not exist', () => {
    expect(warningsFor({ targetRef: { kind: 'MeshSubset', tags: { version: 'v2' } } })).toEqual([
      'spec.targetRef {kind: MeshSubset, tags: {version: v2}} selects no Dataplane of mesh "default": the policy applies to no proxy until one matches',
    ]);
    expect(warningsFor({ targetRef: { kind: 'MeshHTTPRoute', name: 'nope' } })).toEqual([
      "spec.targetRef: couldn't resolve MeshHTTPRoute targetRef with name 'nope': the policy applies to no proxy",
    ]);
  });

  it('names each destination that matches nothing; leaves real-resource refs, which a meshdesk mesh does not have, alone', () => {
    expect(
      warningsFor({
        to: [
          { targetRef: { kind: 'MeshSubset', tags: { version: 'v9' } }, default: {} },
          { targetRef: { kind: 'MeshServiceSubset', name: 'web', tags: { version: 'v2' } }, default: {} },
          { targetRef: { kind: 'MeshHTTPRoute', name: 'gone' }, default: {} },
          { targetRef: { kind: 'MeshService', labels: { app: 'web' } }, default: {} },
          { targetRef: { kind: 'MeshService', name: 'web', sectionName: 'http' }, default: {} },
        ],
      }),
    ).toEqual([
      'spec.to[0].targetRef {kind: MeshSubset, tags: {version: v9}} matches no inbound of any Dataplane of mesh "default"',
      'spec.to[1].targetRef {kind: MeshServiceSubset, name: web, tags: {version: v2}} matches no inbound of service "web" in mesh "default"',
      'spec.to[2].targetRef names MeshHTTPRoute "gone", which does not exist in mesh "default"',
    ]);
  });
});
