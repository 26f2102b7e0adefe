import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DataplaneResource, MeshResource, MeshSpec, Tags } from '../../shared/resources.js';
import { createMeshCa } from './mesh-ca.js';
import { ProxyIdentities, type IdentityHolder, type ProxyIdentity } from './proxy-identities.js';

const TIME = '2026-01-01T00:00:00.000Z';

function mesh(mtls: MeshSpec['mtls']): MeshResource {
  return { type: 'Mesh', meta: { mesh: '', name: 'default', labels: {}, version: 1, creationTime: TIME, modificationTime: TIME }, spec: { mtls } };
}

function builtin(expiration = '1h', mode?: 'STRICT' | 'PERMISSIVE'): MeshSpec['mtls'] {
  return { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin', ...(mode && { mode }), dpCert: { rotation: { expiration } } }] };
}

function proxy(tags: Tags[], labels: Record<string, string> = {}): IdentityHolder {
  const dataplane: DataplaneResource = {
    type: 'Dataplane',
    meta: { mesh: 'default', name: 'web-1', labels, version: 1, creationTime: TIME, modificationTime: TIME },
    spec: { networking: { address: '127.0.0.1', inbound: tags.map((each, index) => ({ port: 18080 + index, tags: each })) } },
  };
  return { id: 'default.web-1', kind: 'envoy', dataplane };
}

/** Identities issued by one CA on a clock the test moves. */
function identities() {
  const clock = { now: new Date('2026-06-01T12:00:00Z') };
  const cas = [createMeshCa('default')];
  const issued: ProxyIdentity[] = [];
  const subject = new ProxyIdentities({ caStore: { get: () => cas.at(-1)! }, now: () => clock.now, onIssued: (_proxy, identity) => issued.push(identity) });
  return { subject, clock, issued, replaceCa: () => cas.push(createMeshCa('default')) };
}

describe('ProxyIdentities', () => {
  it('issues Kuma’s URIs for every service and tag, signed by the mesh CA, and caches it', async () => {
    const { subject, issued } = identities();
    const web = proxy([{ 'kuma.io/service': 'web', version: 'v1' }, { 'kuma.io/service': 'admin', version: 'v1' }]);
    const identity = (await subject.identityFor(mesh(builtin()), web))!;
    expect(identity.uris).toEqual([
      'spiffe://default/admin',
      'spiffe://default/web',
      'kuma://kuma.io/service/admin',
      'kuma://kuma.io/service/web',
      'kuma://version/v1',
    ]);
    expect(new X509Certificate(identity.certChain).checkIssued(new X509Certificate(identity.caCert))).toBe(true);
    expect(await subject.identityFor(mesh(builtin()), web)).toBe(identity);
    expect(issued).toHaveLength(1);
  });

  it('renews after 4/5 of the lifetime, not before', async () => {
    const { subject, clock } = identities();
    const web = proxy([{ 'kuma.io/service': 'web' }]);
    const first = (await subject.identityFor(mesh(builtin('100s')), web))!;
    expect(Date.parse(first.rotateAt) - clock.now.getTime()).toBe(80_000);
    clock.now = new Date(clock.now.getTime() + 79_999);
    expect(await subject.identityFor(mesh(builtin('100s')), web)).toBe(first);
    clock.now = new Date(clock.now.getTime() + 1);
    const second = (await subject.identityFor(mesh(builtin('100s')), web))!;
    expect(second.serial).not.toBe(first.serial);
    expect(subject.status('default.web-1')).toMatchObject({ serial: second.serial, rotations: 1 });
  });

  it('re-issues when the proxy’s tags, the lifetime or the CA change, but not for the mode', async () => {
    const { subject, replaceCa } = identities();
    const first = (await subject.identityFor(mesh(builtin('1h')), proxy([{ 'kuma.io/service': 'web' }])))!;
    expect(await subject.identityFor(mesh(builtin('1h', 'PERMISSIVE')), proxy([{ 'kuma.io/service': 'web' }]))).toBe(first);
    const tagged = (await subject.identityFor(mesh(builtin('1h')), proxy([{ 'kuma.io/service': 'web', version: 'v2' }])))!;
    expect(tagged.uris).toContain('kuma://version/v2');
    const longer = (await subject.identityFor(mesh(builtin('2h')), proxy([{ 'kuma.io/service': 'web', version: 'v2' }])))!;
    expect(longer.serial).not.toBe(tagged.serial);
    replaceCa();
    const newCa = (await subject.identityFor(mesh(builtin('2h')), proxy([{ 'kuma.io/service': 'web', version: 'v2' }])))!;
    expect(newCa.caCert).not.toBe(longer.caCert);
  });

  it('gives none and forgets it when the mesh has mTLS off or a backend meshdesk has no CA for', async () => {
    const { subject } = identities();
    const web = proxy([{ 'kuma.io/service': 'web' }]);
    await subject.identityFor(mesh(builtin()), web);
    expect(await subject.identityFor(mesh(undefined), web)).toBeUndefined();
    expect(subject.status('default.web-1')).toBeUndefined();
    const provided = { enabledBackend: 'ca-2', backends: [{ name: 'ca-2', type: 'provided' }] };
    expect(await subject.identityFor(mesh(provided), web)).toBeUndefined();
  });

  it('names a Dataplane without tagged inbounds by its kuma.io/workload label, else by its name', async () => {
    const { subject } = identities();
    expect((await subject.identityFor(mesh(builtin()), proxy([], { 'kuma.io/workload': 'billing' })))!.uris).toEqual([
      'spiffe://default/billing',
      'kuma://kuma.io/service/billing',
    ]);
    subject.forget('default.web-1');
    expect((await subject.identityFor(mesh(builtin()), proxy([])))!.uris[0]).toBe('spiffe://default/web-1');
  });
});
