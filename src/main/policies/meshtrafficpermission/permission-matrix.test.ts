import { describe, expect, it } from 'vitest';
import type { PermissionMatrix } from './permission-matrix.js';
import { MAX_LISTED_PATHS, permissionMatrix } from './permission-matrix.js';
import { countOperations } from '../../../../test/support/operation-count.js';
import type { MeshResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import type { PolicyResource } from '../core/policy.js';
import { dataplaneResource, meshResource, policyResource } from '../core/testing/resources.js';

const web = dataplaneResource('web-1', [{ port: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }]);
const backend1 = dataplaneResource('backend-1', [{ port: 9000, tags: { 'kuma.io/service': 'backend', version: 'v1' } }], { address: '10.0.0.2' });
const backend2 = dataplaneResource('backend-2', [{ port: 9000, tags: { 'kuma.io/service': 'backend', version: 'v2' } }], { address: '10.0.0.3' });

function mesh(mode?: 'STRICT' | 'PERMISSIVE'): MeshResource {
  const plain = meshResource();
  if (!mode) return plain;
  return { ...plain, spec: { mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin', mode }] } } } as MeshResource;
}

function matrix(meshResource: MeshResource, ...policies: PolicyResource[]): PermissionMatrix {
  return permissionMatrix(buildMeshContext(meshResource, [web, backend1, backend2], { policies }), ALL);
}

function cell(result: PermissionMatrix, caller: string, destination: string) {
  const found = result.cells.find((each) => each.caller === caller && each.destination === destination);
  if (!found) throw new Error(`no cell ${caller} → ${destination}`);
  return found;
}

const ALL = { offset: 0, size: 1000 };
const mtp = (name: string, spec: PolicyResource['spec']) => policyResource('MeshTrafficPermission', name, spec);
const origin = (name: string, item: string) => ({ type: 'MeshTrafficPermission', mesh: 'default', name, item });

describe('permission matrix', () => {
  it('lists every calling service against every service with an inbound', () => {
    const result = matrix(mesh('STRICT'));
    expect(result.callers).toEqual(['backend', 'web']);
    expect(result.destinations).toEqual(['backend', 'web']);
    expect(result.cells.map(({ caller, destination }) => `${caller}→${destination}`)).toEqual(['backend→backend', 'backend→web', 'web→backend', 'web→web']);
    // Two backend Dataplanes with different tags: one path each at every destination inbound.
    expect(cell(result, 'backend', 'web').paths.map((path) => [path.dataplane, path.inbound, path.callers])).toEqual([
      ['web-1', '10.0.0.1:8080', ['backend-1']],
      ['web-1', '10.0.0.1:8080', ['backend-2']],
    ]);
  });

  it('denies every caller when mTLS is on and no MeshTrafficPermission selects an inbound', () => {
    const result = matrix(mesh('STRICT'));
    expect(result.enforced).toBe(true);
    for (const each of result.cells) {
      expect(each.decision).toBe('denied');
      for (const path of each.paths) expect(path.verdict).toEqual({ decision: 'denied', reason: 'no MeshTrafficPermission selects this inbound: mTLS denies all' });
    }
  });

  it('enforces nothing with mTLS off, and says what the rules will decide once it is on', () => {
    const result = matrix(mesh(), mtp('allow-web', { targetRef: { kind: 'MeshService', name: 'backend' }, from: [{ targetRef: { kind: 'MeshService', name: 'web' }, default: { action: 'Allow' } }] }));
    expect(result.enforced).toBe(false);
    expect(result.note).toBe('mTLS is off: permissions are not enforced');
    const webToBackend = cell(result, 'web', 'backend');
    expect(webToBackend.decision).toBe('allowed');
    expect(webToBackend.paths[0]!.verdict).toEqual({ decision: 'allowed', reason: 'mTLS is off: permissions are not enforced' });
    expect(webToBackend.paths[0]!.whenEnforced).toMatchObject({ decision: 'allowed', origin: origin('allow-web', 'spec.from[0]') });
    expect(cell(result, 'backend', 'web').paths[0]!.whenEnforced?.decision).toBe('denied');
  });

  it('decides legacy from by the first rule whose subset contains the caller', () => {
    const result = matrix(
      mesh('STRICT'),
      mtp('backend-callers', {
        targetRef: { kind: 'MeshService', name: 'backend' },
        from: [
          { targetRef: { kind: 'Mesh' }, default: { action: 'Deny' } },
          { targetRef: { kind: 'MeshService', name: 'web' }, default: { action: 'Allow' } },
          { targetRef: { kind: 'MeshServiceSubset', name: 'backend', tags: { version: 'v2' } }, default: { action: 'AllowWithShadowDeny' } },
        ],
      }),
    );
    const webToBackend = cell(result, 'web', 'backend');
    expect(webToBackend.decision).toBe('allowed');
    expect(webToBackend.paths[0]!.verdict).toEqual({
      decision: 'allowed',
      origin: origin('backend-callers', 'spec.from[1]'),
      reason: 'action Allow for kuma.io/service=web',
    });
    // backend-1 (v1) is denied by the Mesh item, backend-2 (v2) let through and logged as denied.
    const backendToBackend = cell(result, 'backend', 'backend');
    expect(backendToBackend.decision).toBe('mixed');
    const byCaller = (name: string) => backendToBackend.paths.filter((path) => path.callers.includes(name)).map((path) => path.verdict);
    expect(byCaller('backend-1').map((verdict) => [verdict.decision, verdict.origin?.item])).toEqual([
      ['denied', 'spec.from[0]'],
      ['denied', 'spec.from[0]'],
    ]);
    expect(byCaller('backend-2').map((verdict) => [verdict.decision, verdict.origin?.item])).toEqual([
      ['shadow-denied', 'spec.from[2]'],
      ['shadow-denied', 'spec.from[2]'],
    ]);
    // web's inbound: no permission selects it.
    expect(cell(result, 'backend', 'web').paths[0]!.verdict.reason).toBe('no MeshTrafficPermission selects this inbound: mTLS denies all');
  });

  it('checks every deny of the rules before any allow, and denies a caller no match names', () => {
    const result = matrix(
      mesh('STRICT'),
      mtp('allow-mesh', { targetRef: { kind: 'Mesh' }, rules: [{ default: { allow: [{ spiffeID: { type: 'Prefix', value: 'spiffe://default' } }] } }] }),
      mtp('deny-web', {
        targetRef: { kind: 'MeshService', name: 'backend' },
        rules: [{ default: { deny: [{ spiffeID: { type: 'Prefix', value: 'spiffe://default/web' } }] } }],
      }),
    );
    const webToBackend = cell(result, 'web', 'backend');
    expect(webToBackend.decision).toBe('denied');
    expect(webToBackend.paths[0]!.verdict).toEqual({
      decision: 'denied',
      origin: origin('deny-web', 'spec.rules[0].default.deny[0]'),
      reason: 'deny spiffeID Prefix spiffe://default/web',
    });
    expect(cell(result, 'backend', 'backend').paths[0]!.verdict).toMatchObject({ decision: 'allowed', origin: origin('allow-mesh', 'spec.rules[0].default.allow[0]') });
    expect(cell(result, 'web', 'web').decision).toBe('allowed');
  });

  it('logs every call it lets through as denied once a rule has allowWithShadowDeny', () => {
    const result = matrix(
      mesh('STRICT'),
      mtp('try-deny', {
        targetRef: { kind: 'MeshService', name: 'backend' },
        rules: [
          {
            default: {
              allow: [{ spiffeID: { type: 'Prefix', value: 'spiffe://default/web' } }],
              allowWithShadowDeny: [{ spiffeID: { type: 'Prefix', value: 'spiffe://default/backend' } }],
            },
          },
        ],
      }),
    );
    expect(cell(result, 'backend', 'backend').paths[0]!.verdict).toEqual({
      decision: 'shadow-denied',
      origin: origin('try-deny', 'spec.rules[0].default.allowWithShadowDeny[0]'),
      reason: 'allow spiffeID Prefix spiffe://default/backend: let through, logged as denied',
    });
    // Kuma's shadow matcher denies by default: an Allow caller is logged as denied too.
    const web = cell(result, 'web', 'backend').paths[0]!.verdict;
    expect(web.decision).toBe('shadow-denied');
    expect(web.origin).toEqual(origin('try-deny', 'spec.rules[0].default.allow[0]'));
    expect(web.reason).toBe(
      'allow spiffeID Prefix spiffe://default/web: let through; the shadow rules (from MeshTrafficPermission try-deny spec.rules[0]) deny every caller they do not name, so it is logged as denied',
    );
  });

  it('matches an SNI rule against the SNI the caller sends, and says why an Exact SPIFFE ID does not match', () => {
    const result = matrix(
      mesh('STRICT'),
      mtp('by-sni', { targetRef: { kind: 'MeshService', name: 'backend' }, rules: [{ default: { allow: [{ sni: { type: 'Exact', value: 'backend{mesh=default}' } }] } }] }),
      mtp('exact', { targetRef: { kind: 'MeshService', name: 'web' }, rules: [{ default: { allow: [{ spiffeID: { type: 'Exact', value: 'spiffe://default/backend' } }] } }] }),
    );
    expect(cell(result, 'web', 'backend').decision).toBe('allowed');
    const backendToWeb = cell(result, 'backend', 'web').paths[0]!.verdict;
    expect(backendToWeb.decision).toBe('denied');
    expect(backendToWeb.reason).toContain('Envoy compares it with all of them joined by commas');
  });

  it('warns that PERMISSIVE does not check plaintext callers', () => {
    expect(matrix(mesh('PERMISSIVE')).note).toContain('PERMISSIVE');
    expect(matrix(mesh('PERMISSIVE')).mode).toBe('PERMISSIVE');
  });

  it('answers an empty matrix for a mesh without Dataplanes', () => {
    expect(permissionMatrix(buildMeshContext(mesh('STRICT'), [], { policies: [] }), ALL)).toMatchObject({ callers: [], destinations: [], total: 0, cells: [] });
  });

  it('answers a page of cells from a mesh of 2,000 Dataplanes, each cell decided from all its paths but listing a few', () => {
    // 2,000 Dataplanes of 20 services, each with a tag of its own: every caller Dataplane is its own caller group.
    const dataplanes = Array.from({ length: 2000 }, (_, index) =>
      dataplaneResource(`dp-${index}`, [{ port: 8080, tags: { 'kuma.io/service': `svc-${index % 20}`, instance: `${index}` } }], { address: `10.1.${Math.floor(index / 250)}.${index % 250}` }),
    );
    const allowOne = mtp('svc-1-from-svc-0-instance-0', {
      targetRef: { kind: 'MeshService', name: 'svc-1' },
      from: [{ targetRef: { kind: 'MeshSubset', tags: { 'kuma.io/service': 'svc-0', instance: '0' } }, default: { action: 'Allow' } }],
    });
    const context = buildMeshContext(mesh('STRICT'), dataplanes, { policies: [allowOne] });
    let first: PermissionMatrix | undefined;
    const operations = countOperations(() => (first = permissionMatrix(context, { offset: 0, size: 30 })));
    expect(first).toMatchObject({ total: 400, offset: 0 });
    expect(first!.callers).toHaveLength(20);
    expect(first!.cells.map(({ caller, destination }) => `${caller}→${destination}`).slice(0, 3)).toEqual(['svc-0→svc-0', 'svc-0→svc-1', 'svc-0→svc-10']);
    expect(first!.cells).toHaveLength(30);
    const svc0ToSvc1 = cell(first!, 'svc-0', 'svc-1');
    // 100 destination inbounds × 100 caller Dataplanes: one allowed (instance 0), the rest denied.
    expect(svc0ToSvc1).toMatchObject({ decision: 'mixed', pathCount: 10_000 });
    expect(svc0ToSvc1.paths).toHaveLength(MAX_LISTED_PATHS);
    expect(new Set(svc0ToSvc1.paths.map((path) => path.verdict.decision))).toEqual(new Set(['allowed', 'denied']));
    expect(svc0ToSvc1.paths.find((path) => path.verdict.decision === 'allowed')).toMatchObject({ dataplane: 'dp-1', callers: ['dp-0'] });
    // The answer is bounded by the page, not by the 4,000,000 paths of the mesh.
    expect(JSON.stringify(first).length).toBeLessThan(200_000);
    // Decided once per caller group and rule group (about 2,000 × 20 per page), not once per path (4,000,000).
    expect(operations).toBeLessThan(20_000_000);

    const last = permissionMatrix(context, { offset: 390, size: 30 });
    // The last page: the rest of the cells, callers major, services in name order.
    expect(last.cells.map(({ caller, destination }) => `${caller}→${destination}`)).toEqual(
      ['svc-18', 'svc-19', 'svc-2', 'svc-3', 'svc-4', 'svc-5', 'svc-6', 'svc-7', 'svc-8', 'svc-9'].map((destination) => `svc-9→${destination}`),
    );
  });
});
