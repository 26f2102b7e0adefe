import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROTOCOLS, SERVICE_TAG, PROTOCOL_TAG } from '../../shared/resources.js';
import type { DataplaneResource, MeshResource, Resource, Tags } from '../../shared/resources.js';
import { defaultMesh, toKumaObject } from './kuma-json.js';
import { parseResourceText } from './parse.js';
import { validateResource, validateResourceInput } from './validate.js';

const meta = {
  creationTime: '2026-01-01T10:00:00.000Z',
  modificationTime: '2026-01-02T10:00:00.000Z',
  labels: { team: 'payments' },
  version: 3,
};

const backend: DataplaneResource = {
  type: 'Dataplane',
  meta: { ...meta, mesh: 'default', name: 'backend-1' },
  spec: {
    networking: {
      address: '127.0.0.1',
      inbound: [{ port: 18080, servicePort: 8080, tags: { [SERVICE_TAG]: 'backend', [PROTOCOL_TAG]: 'http' } }],
      outbound: [{ port: 10001, tags: { [SERVICE_TAG]: 'web' } }],
      admin: { port: 9901 },
    },
  },
};

/** What reading a resource's API shape back must give. */
function inputOf(resource: Resource) {
  return {
    type: resource.type,
    mesh: resource.meta.mesh,
    name: resource.meta.name,
    labels: resource.meta.labels,
    spec: resource.spec,
    version: resource.meta.version,
  };
}

describe('toKumaObject', () => {
  it('puts meta and spec fields side by side, in the Kuma API shape', () => {
    expect(toKumaObject(backend)).toEqual({
      type: 'Dataplane',
      mesh: 'default',
      name: 'backend-1',
      creationTime: '2026-01-01T10:00:00.000Z',
      modificationTime: '2026-01-02T10:00:00.000Z',
      labels: { team: 'payments' },
      kri: 'kri_dp_default___backend-1_',
      version: 3,
      networking: backend.spec.networking,
    });
  });

  it('leaves mesh out for a Mesh', () => {
    const mesh: MeshResource = { type: 'Mesh', meta: { ...meta, mesh: '', name: 'default' }, spec: {} };
    expect(toKumaObject(mesh)).toEqual({ type: 'Mesh', name: 'default', ...meta, kri: 'kri_m____default_' });
    expect(toKumaObject(mesh)).not.toHaveProperty('mesh');
  });

  it('is read back by validateResource as the same input (GET → PUT)', () => {
    expect(validateResource(toKumaObject(backend))).toEqual(inputOf(backend));
  });

  it('survives JSON text too, as the HTTP API sends it', () => {
    const text = JSON.stringify(toKumaObject(backend));
    expect(validateResource(parseResourceText(text), { type: 'Dataplane', mesh: 'default', name: 'backend-1' })).toEqual(
      inputOf(backend),
    );
  });
});

describe('defaultMesh', () => {
  it('is the valid Mesh named "default"', () => {
    expect(defaultMesh()).toEqual({ type: 'Mesh', mesh: '', name: 'default', labels: {}, spec: {} });
    expect(() => validateResourceInput(defaultMesh())).not.toThrow();
  });
});

describe('round trip of generated valid Dataplanes', () => {
  const meshName = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,14}[a-z0-9])?$/);
  // Kuma's names: lowercase RFC 1123 subdomains.
  const resourceName = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?){0,2}$/);
  const tagValue = fc.stringMatching(/^[a-zA-Z0-9.\-_:]{1,16}$/);
  const extraTagName = fc
    .stringMatching(/^[a-zA-Z0-9.\-_:/]{1,16}$/)
    .filter((name) => name !== SERVICE_TAG && name !== PROTOCOL_TAG);
  const tags: fc.Arbitrary<Tags> = fc
    .record({
      service: tagValue,
      protocol: fc.option(fc.constantFrom(...PROTOCOLS), { nil: undefined }),
      extra: fc.dictionary(extraTagName, tagValue, { maxKeys: 3 }),
    })
    .map(({ service, protocol, extra }) => ({
      ...extra,
      [SERVICE_TAG]: service,
      ...(protocol === undefined ? {} : { [PROTOCOL_TAG]: protocol }),
    }));
  const ip = fc.oneof(fc.ipV4(), fc.ipV6());
  const host = fc.oneof(ip, fc.domain()).filter((address) => address !== '0.0.0.0' && address !== '::');
  const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
  const withoutUndefined = <T extends object>(object: T): T =>
    Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;

  // Every listener gets its own port, so that none clash whatever their addresses.
  const dataplaneResource: fc.Arbitrary<DataplaneResource> = fc
    .record({
      mesh: meshName,
      name: resourceName,
      version: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      labels: fc.dictionary(fc.string({ minLength: 1 }), fc.string(), { maxKeys: 3 }),
      address: host,
      advertisedAddress: optional(host),
      ports: fc.uniqueArray(fc.integer({ min: 1, max: 65535 }), { minLength: 7, maxLength: 7 }),
      inbound: fc.array(
        fc.record({ servicePort: optional(fc.integer({ min: 1, max: 65535 })), address: optional(ip), serviceAddress: optional(ip), tags }),
        { maxLength: 3 },
      ),
      outbound: fc.array(fc.record({ address: optional(ip), tags }), { maxLength: 3 }),
      withAdmin: fc.boolean(),
    })
    .filter(({ inbound, outbound }) => inbound.length + outbound.length > 0)
    // Kuma refuses an inbound whose workload is the inbound itself (serviceAddress:servicePort = address:port).
    .filter(({ address, ports, inbound }) =>
      inbound.every(
        (item, index) =>
          item.serviceAddress === undefined || item.serviceAddress !== (item.address ?? address) || (item.servicePort ?? ports[index]) !== ports[index],
      ),
    )
    .map(({ mesh, name, version, labels, address, advertisedAddress, ports, inbound, outbound, withAdmin }) => ({
      type: 'Dataplane' as const,
      meta: { mesh, name, version, labels, creationTime: meta.creationTime, modificationTime: meta.modificationTime },
      spec: {
        networking: withoutUndefined({
          address,
          advertisedAddress,
          inbound: inbound.map((item, index) => withoutUndefined({ port: ports[index]!, ...item })),
          outbound: outbound.map((item, index) => withoutUndefined({ port: ports[3 + index]!, ...item })),
          admin: withAdmin ? { port: ports[6]! } : undefined,
        }),
      },
    }));

  it('reads toKumaObject of any valid Dataplane back to the same spec, labels and version', () => {
    fc.assert(
      fc.property(dataplaneResource, (resource) => {
        const input = validateResource(toKumaObject(resource), { type: 'Dataplane' });
        expect(input).toEqual(inputOf(resource));
        validateResourceInput(input);
      }),
      { numRuns: 500 },
    );
  });

  it('reads it back from JSON text as well', () => {
    fc.assert(
      fc.property(dataplaneResource, (resource) => {
        const text = JSON.stringify(toKumaObject(resource));
        expect(validateResource(parseResourceText(text))).toEqual(inputOf(resource));
      }),
      { numRuns: 200 },
    );
  });
});
