import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESOURCE_TYPES, type ResourceInput } from '../../shared/resources.js';
import { ValidationError } from './validation-error.js';
import { validateResource, validateResourceInput } from './validate.js';
import type { ExpectedResource } from './validate.js';

/** SPEC §3's Dataplane, in the API shape; each test breaks it its own way. */
function dataplane(): Record<string, any> {
  return {
    type: 'Dataplane',
    mesh: 'default',
    name: 'backend-1',
    networking: {
      address: '127.0.0.1',
      inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http' } }],
      outbound: [{ port: 10001, tags: { 'kuma.io/service': 'web' } }],
      admin: { port: 9901 },
    },
  };
}

function violationsOf(input: unknown, expected?: ExpectedResource) {
  try {
    validateResource(input, expected);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).violations;
  }
  throw new Error('expected a ValidationError');
}

/** One broken field, one violation. */
function expectViolation(input: unknown, field: string, message: string | RegExp) {
  expect(violationsOf(input)).toEqual([{ field, message: typeof message === 'string' ? message : expect.stringMatching(message) }]);
}

function withNetworking(change: (networking: Record<string, any>) => void) {
  const input = dataplane();
  change(input.networking);
  return input;
}

describe('validateResource: a valid Dataplane', () => {
  it('reads the API shape into a typed input with the spec nested', () => {
    expect(validateResource(dataplane())).toEqual({
      type: 'Dataplane',
      mesh: 'default',
      name: 'backend-1',
      labels: {},
      spec: {
        networking: {
          address: '127.0.0.1',
          inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http' } }],
          outbound: [{ port: 10001, tags: { 'kuma.io/service': 'web' } }],
          admin: { port: 9901 },
        },
      },
    });
  });

  it('treats null like an absent field, as YAML `field:` with nothing after it', () => {
    const input = withNetworking((networking) => {
      networking.inbound[0].servicePort = null;
      networking.admin = null;
    });
    input.labels = null;
    const result: ResourceInput<'Dataplane'> = validateResource(input, { type: 'Dataplane' });
    expect(result.labels).toEqual({});
    expect(result.spec.networking).not.toHaveProperty('admin');
    expect(result.spec.networking.inbound![0]).not.toHaveProperty('servicePort');
  });

  it('tolerates the read-only fields kumactl sends back and turns version into the version to update', () => {
    const input = { ...dataplane(), creationTime: '0001-01-01T00:00:00Z', modificationTime: '0001-01-01T00:00:00Z', kri: 'kri_dp_default___backend-1_', version: 7 };
    const result = validateResource(input);
    expect(result.version).toBe(7);
    expect(result.spec).not.toHaveProperty('kri');
  });

  it('keeps a "__proto__" label as a label', () => {
    const input = dataplane();
    input.labels = JSON.parse('{"__proto__": "x"}');
    const { labels } = validateResource(input);
    expect(Object.keys(labels)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
  });
});

describe('validateResource: the spec, read as Kuma reads protobuf JSON', () => {
  it('keeps every field of Kuma\'s Dataplane, whether meshdesk acts on it or not', () => {
    const spec = {
      networking: {
        address: '10.0.0.1',
        advertisedAddress: 'backend.example',
        inbound: [
          {
            port: 8080,
            name: 'http',
            protocol: 'kafka',
            state: 'NotReady',
            health: { ready: true },
            serviceProbe: { interval: '1s', timeout: '500ms', healthyThreshold: 2, unhealthyThreshold: 3, tcp: {} },
          },
        ],
        outbound: [{ port: 10001, backendRef: { kind: 'MeshService', name: 'web', port: 80, labels: {} } }],
        transparentProxying: {
          redirectPortInbound: 15006,
          redirectPortOutbound: 15001,
          directAccessServices: ['*'],
          reachableServices: ['web'],
          ipFamilyMode: 'DualStack',
          reachableBackends: { refs: [{ kind: 'MeshService', name: 'web', port: 80 }] },
        },
        admin: { port: 9901 },
        listeners: [{ type: 'ZoneIngress', address: '10.0.0.1', port: 10001, name: 'zi', state: 'Ready' }],
      },
      metrics: { type: 'prometheus', conf: { port: 5670, path: '/metrics', extra: { kept: true } } },
      probes: { port: 9000, endpoints: [{ inboundPort: 8080, inboundPath: '/healthz', path: '/8080/healthz' }] },
    };
    expect(validateResource({ type: 'Dataplane', mesh: 'default', name: 'backend-1', ...spec }).spec).toEqual(spec);
  });

  it('keeps every field of Kuma\'s Mesh', () => {
    const spec = {
      mtls: {
        enabledBackend: 'ca-1',
        backends: [{ name: 'ca-1', type: 'builtin', dpCert: { rotation: { expiration: '1d' }, requestTimeout: '10s' }, conf: { caCert: { RSAbits: 2048 } }, mode: 'PERMISSIVE', rootChain: { requestTimeout: '5s' } }],
        skipValidation: false,
      },
      tracing: { defaultBackend: 'zipkin', backends: [{ name: 'zipkin', type: 'zipkin', sampling: 50.5, conf: { url: 'http://zipkin:9411/api/v2/spans' } }] },
      logging: { defaultBackend: 'file', backends: [{ name: 'file', type: 'file', format: '%START_TIME%', conf: { path: '/tmp/access.log' } }] },
      metrics: { enabledBackend: 'prom', backends: [{ name: 'prom', type: 'prometheus', conf: { port: 5670 } }] },
      networking: { outbound: { passthrough: false } },
      routing: { localityAwareLoadBalancing: true, zoneEgress: true, defaultForbidMeshExternalServiceAccess: true },
      constraints: { dataplaneProxy: { requirements: [{ tags: { 'kuma.io/zone': '*' } }], restrictions: [] } },
      skipCreatingInitialPolicies: ['*'],
      meshServices: { mode: 'Exclusive' },
    };
    expect(validateResource({ type: 'Mesh', name: 'team.a', ...spec }).spec).toEqual(spec);
  });

  it('reads proto field names and integers written as strings, and stores them as Kuma prints them', () => {
    const input = withNetworking((networking) => {
      networking.inbound[0].port = '18080';
      networking.transparent_proxying = { redirect_port_inbound: '15006', ip_family_mode: 1 };
    });
    const { networking } = (validateResource(input) as ResourceInput<'Dataplane'>).spec;
    expect(networking.inbound![0]!.port).toBe(18080);
    expect(networking.transparentProxying).toEqual({ redirectPortInbound: 15006, ipFamilyMode: 'DualStack' });
  });

  it('reads a null tag value as the empty string, which the tag rules then refuse', () => {
    expect(violationsOf(withNetworking((networking) => (networking.inbound[0].tags.version = null)))).toEqual([
      { field: 'networking.inbound[0].tags["version"]', message: 'tag value must be non-empty' },
    ]);
  });

  it('names a value of the wrong JSON type at its field', () => {
    expect(
      violationsOf(
        withNetworking((networking) => {
          networking.inbound[0].port = -1;
          networking.inbound[0].tags.version = 1;
          networking.outbound = { port: 1 };
          networking.gateway = { type: 'SIDECAR' };
          networking.inbound[0].serviceProbe = { interval: '1 second' };
        }),
      ),
    ).toEqual([
      { field: 'networking.inbound[0].port', message: 'must be an integer in [0, 4294967295]' },
      { field: 'networking.inbound[0].tags["version"]', message: 'must be a string (quote it: "1")' },
      { field: 'networking.inbound[0].serviceProbe.interval', message: 'must be a duration such as "1s", "500ms" or "1m30s"' },
      { field: 'networking.outbound', message: 'must be an array' },
      { field: 'networking.gateway.type', message: 'must be one of DELEGATED, BUILTIN' },
    ]);
  });

  it('refuses unknown fields at any depth instead of dropping them (a typo must not change what a proxy gets)', () => {
    expect(violationsOf({ ...dataplane(), spec: {}, 'meta.data': 1 })).toEqual([
      { field: 'spec', message: 'unknown field' },
      { field: '["meta.data"]', message: 'unknown field' },
    ]);
    expectViolation(withNetworking((networking) => (networking.inbound[0].servicePrt = 1)), 'networking.inbound[0].servicePrt', 'unknown field');
    expectViolation({ type: 'Mesh', name: 'm', mtls: { enabled: 'ca-1' } }, 'mtls.enabled', 'unknown field');
    // Only the message's own fields: an input's `constructor` is not Object's.
    expectViolation({ type: 'Mesh', name: 'm', constructor: { prototype: {} } }, 'constructor', 'unknown field');
  });

  it('drops unknown fields inside a backend conf, as Kuma does, but still checks the ones it knows', () => {
    expect(() => validateResource({ type: 'Mesh', name: 'm', logging: { backends: [{ name: 'f', type: 'file', conf: { path: '/a', other: 1 } }] } })).not.toThrow();
    expectViolation(
      { type: 'Mesh', name: 'm', logging: { backends: [{ name: 'f', type: 'file', conf: { path: 5 } }] } },
      'logging.backends[0].config',
      'could not parse config: path: must be a string (quote it: "5")',
    );
  });
});

describe('validateResource: names and meta, as Kuma checks them', () => {
  it('refuses something that is not an object', () => {
    for (const input of [null, 'Mesh', 42, [dataplane()]]) {
      expect(violationsOf(input)).toEqual([{ field: '', message: 'must be an object' }]);
    }
  });

  it('requires a type, one it knows', () => {
    const { type: _, ...input } = dataplane();
    expectViolation(input, 'type', 'cannot be empty');
    expectViolation({ ...dataplane(), type: 'TrafficRoute' }, 'type', `must be one of ${RESOURCE_TYPES.join(', ')}`);
  });

  it('requires a name, a lowercase RFC 1123 subdomain of at most 253 characters', () => {
    expectViolation({ ...dataplane(), name: '' }, 'name', 'cannot be empty');
    for (const name of ['Backend', '-backend', 'back_end', 'a..b', 'back end']) {
      expectViolation({ ...dataplane(), name }, 'name', /^invalid characters. A lowercase RFC 1123 subdomain/);
    }
    expect(validateResource({ ...dataplane(), name: 'backend-1.v2' }).name).toBe('backend-1.v2');
    expectViolation({ ...dataplane(), name: 'a'.repeat(254) }, 'name', 'value length must less or equal 253');
    expectViolation({ ...dataplane(), name: 12 }, 'name', 'must be a string (quote it: "12")');
  });

  it('checks a Dataplane\'s mesh with Kuma\'s older, wider rule', () => {
    expect(validateResource({ ...dataplane(), mesh: 'team_a.dev' }).mesh).toBe('team_a.dev');
    expectViolation({ ...dataplane(), mesh: 'Default' }, 'mesh', /^invalid characters. Valid characters are numbers/);
    expectViolation({ ...dataplane(), mesh: undefined }, 'mesh', 'cannot be empty');
  });

  it('requires labels to be an object of strings (kuma.io/workload is the API\'s to check, on create)', () => {
    expectViolation({ ...dataplane(), labels: ['a'] }, 'labels', 'must be an object');
    expect(violationsOf({ ...dataplane(), labels: { team: 1, '': 'x', 'kuma.io/workload': 'MyApp' } })).toEqual([
      { field: 'labels["team"]', message: 'must be a string (quote it: "1")' },
      { field: 'labels[""]', message: 'key must be non-empty' },
    ]);
  });

  it('requires version to be a positive integer, and the read-only fields, when present, to be strings', () => {
    for (const version of [0, -1, 1.5, '3', true]) {
      expectViolation({ ...dataplane(), version }, 'version', 'must be a positive integer');
    }
    expectViolation({ ...dataplane(), creationTime: 5 }, 'creationTime', 'must be a string (quote it: "5")');
    expectViolation({ ...dataplane(), kri: {} }, 'kri', 'must be a string');
  });
});

describe('validateResource: Mesh', () => {
  it('accepts a mesh with a name and labels', () => {
    expect(validateResource({ type: 'Mesh', name: 'default', labels: { env: 'dev' } })).toEqual({
      type: 'Mesh',
      mesh: '',
      name: 'default',
      labels: { env: 'dev' },
      spec: {},
    });
  });

  it('refuses a mesh field: a Mesh belongs to no mesh', () => {
    expectViolation({ type: 'Mesh', name: 'default', mesh: 'default' }, 'mesh', 'must not be set: a Mesh does not belong to a mesh');
  });

  it('accepts a dot in a mesh name, as Kuma does, and refuses names longer than 63 characters', () => {
    expect(validateResource({ type: 'Mesh', name: 'aa.a' }).name).toBe('aa.a');
    expectViolation({ type: 'Mesh', name: 'm'.repeat(64) }, 'name', 'cannot be longer than 63 characters');
  });

  it('checks mTLS backends as Kuma and its CA plugins do', () => {
    expect(
      violationsOf({
        type: 'Mesh',
        name: 'm',
        mtls: { enabledBackend: 'ca-3', backends: [{ name: 'ca-1', type: 'builtin' }, { name: 'ca-1', type: 'vault' }] },
      }),
    ).toEqual([
      { field: 'mtls.backends', message: 'cannot have more than 1 backends' },
      { field: 'mtls.backends[1].name', message: '"ca-1" name is already used for another backend' },
      { field: 'mtls.enabledBackend', message: 'has to be set to one of the backends in the mesh' },
    ]);
    expectViolation(
      { type: 'Mesh', name: 'm', mtls: { backends: [{ name: 'ca-1', type: 'vault' }] } },
      'mtls.backends[0].type',
      'could not find installed plugin for this type',
    );
    expectViolation(
      { type: 'Mesh', name: 'm', mtls: { backends: [{ name: 'ca-1', type: 'builtin', dpCert: { rotation: { expiration: '1 day' } } }] } },
      'mtls.dpcert.rotation.expiration',
      'has to be a valid format',
    );
    expectViolation({ type: 'Mesh', name: 'm', routing: { zoneEgress: true } }, 'mtls', 'has to be set when zoneEgress enabled');
  });

  it('refuses an identity certificate lifetime below one minute, naming the field (meshdesk beyond Kuma)', () => {
    const mesh = (expiration: string) => ({ type: 'Mesh', name: 'm', mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin', dpCert: { rotation: { expiration } } }] } });
    for (const expiration of ['1s', '59s', '0s', '59999ms']) {
      expect(violationsOf(mesh(expiration))).toEqual([
        {
          field: 'mtls.backends[0].dpCert.rotation.expiration',
          message: expect.stringMatching(new RegExp(`^must be at least 1m, got "${expiration}": an identity certificate is renewed after 4/5 of its lifetime`)),
        },
      ]);
    }
    for (const expiration of ['1m', '60s', '24h']) expect(() => validateResource(mesh(expiration))).not.toThrow();
  });

  it('checks logging, tracing and metrics backends', () => {
    expect(
      violationsOf({
        type: 'Mesh',
        name: 'm',
        logging: { defaultBackend: 'x', backends: [{ name: 'tcp', type: 'tcp', conf: { address: 'no-port' } }] },
        tracing: { backends: [{ name: 'z', type: 'zipkin', sampling: 101, conf: { url: 'http://zipkin/spans' } }] },
        metrics: { backends: [{ name: 'p', type: 'statsd' }] },
      }),
    ).toEqual([
      { field: 'logging.backends[0].config.address', message: 'has to be in format of HOST:PORT' },
      { field: 'logging.defaultBackend', message: 'has to be set to one of the logging backend in mesh' },
      { field: 'tracing.backends[0].sampling', message: 'has to be in [0.0 - 100.0] range' },
      { field: 'tracing.backends[0].config.url', message: 'port has to be explicitly specified' },
      { field: 'metrics.backends[0].type', message: 'unknown backend type. Available backends: "prometheus"' },
    ]);
  });
});

describe('validateResource: in Kuma\'s order', () => {
  it('answers a spec with problems with those alone, as Kuma does before it looks at the URL and the meta', () => {
    const input = { ...withNetworking((networking) => (networking.inbound[0].port = 0)), name: 'Bad' };
    expect(violationsOf(input, { type: 'Dataplane', mesh: 'default', name: 'backend-2' })).toEqual([
      { field: 'networking.inbound[0].port', message: 'port must be in the range [1, 65535]' },
    ]);
  });

  it('then compares the URL with the body, with Kuma\'s messages, and checks the meta', () => {
    expect(violationsOf({ ...dataplane(), name: 'Bad' }, { type: 'Dataplane', mesh: 'other', name: 'backend-1' })).toEqual([
      { field: 'name', message: 'name from the URL has to be the same as in body' },
      { field: 'mesh', message: 'mesh from the URL has to be the same as in body' },
      { field: 'name', message: expect.stringMatching(/^invalid characters/) },
    ]);
  });

  it('reads the body as the type of the URL: another type is only a mismatch', () => {
    expect(violationsOf({ ...dataplane(), type: 'MeshTrafficPermission' }, { type: 'Dataplane', mesh: 'default', name: 'backend-1' })).toEqual([
      { field: 'type', message: 'type from the URL has to be the same as in body' },
    ]);
  });

  it('names the resource of the URL in the error title', () => {
    const input = withNetworking((networking) => (networking.inbound[0].port = 0));
    expect(() => validateResource(input, { type: 'Dataplane', mesh: 'default', name: 'backend-1' })).toThrow(
      'Dataplane "backend-1" in mesh "default" is not valid: networking.inbound[0].port: port must be in the range [1, 65535]',
    );
    expect(() => validateResource({ type: 'Mesh', name: 'x', mtls: { x: 1 } }, { type: 'Mesh', name: 'x' })).toThrow(
      'Mesh "x" is not valid: mtls.x: unknown field',
    );
  });
});

describe('validateResourceInput', () => {
  const typed = (): ResourceInput<'Dataplane'> => validateResource(dataplane(), { type: 'Dataplane' });

  it('accepts what validateResource returns', () => {
    expect(() => validateResourceInput(typed())).not.toThrow();
    expect(() => validateResourceInput(validateResource({ type: 'Mesh', name: 'default' }))).not.toThrow();
  });

  it('applies the same rules, with the same field paths, to a typed input', () => {
    const input = typed();
    input.spec.networking.inbound![0]!.port = 0;
    input.spec.networking.outbound![0]!.tags = { version: 'v1' };

    expect(() => validateResourceInput(input)).toThrow(
      expect.objectContaining({
        title: 'Dataplane "backend-1" in mesh "default" is not valid',
        violations: [
          { field: 'networking.inbound[0].port', message: 'port must be in the range [1, 65535]' },
          { field: 'networking.outbound[0].tags', message: 'mandatory tag "kuma.io/service" is missing' },
        ],
      }),
    );
  });

  it('refuses a Mesh input that names a mesh', () => {
    const mesh: ResourceInput<'Mesh'> = { type: 'Mesh', mesh: 'default', name: 'other', labels: {}, spec: {} };
    expect(() => validateResourceInput(mesh)).toThrow('mesh: must not be set: a Mesh does not belong to a mesh');
  });

  it('refuses fields a typed input smuggles into its spec', () => {
    const input = typed();
    (input.spec as unknown as Record<string, unknown>).name = 'x';
    expect(() => validateResourceInput(input)).toThrow('name: unknown field');
  });
});

describe('validateResource: any input', () => {
  const text = fc.oneof(fc.string(), fc.constantFrom('', 'backend', 'default', 'kuma.io/service', '127.0.0.1', '::'));
  const anything = fc.oneof(fc.jsonValue(), text, fc.integer({ min: -2, max: 70000 }));
  const tags = fc.oneof(anything, fc.dictionary(fc.oneof(text, fc.constant('kuma.io/protocol')), fc.oneof(text, anything)));
  const listener = fc.oneof(
    anything,
    fc.record({ port: anything, servicePort: anything, address: anything, tags, extra: anything }, { requiredKeys: [] }),
  );
  const resourceLike = fc.record(
    {
      type: fc.oneof(fc.constantFrom('Mesh', 'Dataplane'), anything),
      mesh: fc.oneof(text, anything),
      name: fc.oneof(text, anything),
      labels: fc.oneof(fc.dictionary(text, fc.oneof(text, anything)), anything),
      version: anything,
      creationTime: anything,
      networking: fc.oneof(
        anything,
        fc.record(
          {
            address: fc.oneof(text, anything),
            inbound: fc.oneof(fc.array(listener, { maxLength: 3 }), anything),
            outbound: fc.oneof(fc.array(listener, { maxLength: 3 }), anything),
            admin: fc.oneof(fc.record({ port: anything }), anything),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  );

  it('either returns a resource or throws a ValidationError, never another error', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), resourceLike), (input) => {
        try {
          const resource = validateResource(input);
          // Whatever it accepts, the typed rules accept too: one set of rules.
          validateResourceInput(resource);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          expect(error.violations.length).toBeGreaterThan(0);
        }
      }),
      // Found by a run of this property: a type whose String() throws (JSON can spell it).
      { numRuns: 2000, examples: [[JSON.parse('{"type":[{"toString":0}]}')]] },
    );
  });
});
