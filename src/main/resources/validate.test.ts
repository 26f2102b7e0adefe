import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResourceInput } from '../../shared/resources.js';
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

  it('accepts a proxyless client with outbounds only', () => {
    const input = withNetworking((networking) => delete networking.inbound);
    expect(validateResource(input).spec).toEqual({
      networking: {
        address: '127.0.0.1',
        outbound: [{ port: 10001, tags: { 'kuma.io/service': 'web' } }],
        admin: { port: 9901 },
      },
    });
  });

  it('accepts a dataplane with inbounds only', () => {
    expect(() => validateResource(withNetworking((networking) => delete networking.outbound))).not.toThrow();
  });

  it('accepts host names and IPv6 addresses where other proxies connect', () => {
    for (const address of ['backend.local', 'localhost', '::1', '192.168.0.10', 'fd00::10']) {
      expect(() => validateResource(withNetworking((networking) => (networking.address = address)))).not.toThrow();
    }
  });

  it('keeps every optional field it knows', () => {
    const input = withNetworking((networking) => {
      networking.advertisedAddress = 'dp.example.com';
      networking.inbound[0].address = '10.0.0.1';
      networking.inbound[0].serviceAddress = '127.0.0.1';
      networking.outbound[0].address = '127.0.0.2';
    });
    input.labels = { team: 'payments', empty: '' };

    const result = validateResource(input);

    expect(result.labels).toEqual({ team: 'payments', empty: '' });
    expect(result.spec.networking).toMatchObject({
      advertisedAddress: 'dp.example.com',
      inbound: [{ address: '10.0.0.1', serviceAddress: '127.0.0.1' }],
      outbound: [{ address: '127.0.0.2' }],
    });
  });

  it('treats null like an absent field, as YAML `field:` with nothing after it', () => {
    const input = withNetworking((networking) => {
      networking.inbound[0].servicePort = null;
      networking.admin = null;
    });
    input.labels = null;
    const result = validateResource(input);
    expect(result.labels).toEqual({});
    expect(result.spec.networking).not.toHaveProperty('admin');
    expect(result.spec.networking.inbound![0]).not.toHaveProperty('servicePort');
  });

  it('tolerates the read-only meta fields of a GET and turns version into the version to update', () => {
    const input = { ...dataplane(), creationTime: '2026-01-01T00:00:00Z', modificationTime: '2026-01-02T00:00:00Z', version: 7 };
    expect(validateResource(input).version).toBe(7);
  });

  it('keeps a "__proto__" label as a label', () => {
    const input = dataplane();
    input.labels = JSON.parse('{"__proto__": "x"}');
    const { labels } = validateResource(input);
    expect(Object.keys(labels)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
  });
});

describe('validateResource: type, names and meta', () => {
  it('refuses something that is not an object', () => {
    for (const input of [null, 'Mesh', 42, [dataplane()]]) {
      expect(violationsOf(input)).toEqual([{ field: '', message: 'must be an object' }]);
    }
  });

  it('requires a type', () => {
    const { type: _, ...input } = dataplane();
    expectViolation(input, 'type', 'is required');
  });

  it('refuses an unknown type', () => {
    expectViolation({ ...dataplane(), type: 'TrafficRoute' }, 'type', 'must be one of Mesh, Dataplane');
  });

  it('requires a name', () => {
    expectViolation({ ...dataplane(), name: undefined }, 'name', 'is required');
    expectViolation({ ...dataplane(), name: '' }, 'name', 'is required');
  });

  it('refuses names that are not DNS-1123 subdomains', () => {
    const rule = /^must consist of lower case alphanumeric characters, '-' or '.'/;
    for (const name of ['Backend', '-backend', 'backend-', 'back_end', '.backend', 'back end']) {
      expectViolation({ ...dataplane(), name }, 'name', rule);
    }
    expect(validateResource({ ...dataplane(), name: 'backend-1.v2' }).name).toBe('backend-1.v2');
  });

  it('refuses names longer than 253 characters', () => {
    expect(() => validateResource({ ...dataplane(), name: 'a'.repeat(253) })).not.toThrow();
    expectViolation({ ...dataplane(), name: 'a'.repeat(254) }, 'name', 'must be at most 253 characters');
  });

  it('refuses a name that is not a string', () => {
    expectViolation({ ...dataplane(), name: 12 }, 'name', 'must be a string (quote it: "12")');
  });

  it('requires labels to be an object of strings with non-empty keys', () => {
    expectViolation({ ...dataplane(), labels: ['a'] }, 'labels', 'must be an object');
    expect(violationsOf({ ...dataplane(), labels: { team: 1, '': 'x', ok: 'y' } })).toEqual([
      { field: 'labels["team"]', message: 'must be a string (quote it: "1")' },
      { field: 'labels[""]', message: 'key must be non-empty' },
    ]);
  });

  it('requires version to be a positive integer', () => {
    for (const version of [0, -1, 1.5, '3', true]) {
      expectViolation({ ...dataplane(), version }, 'version', 'must be a positive integer');
    }
  });

  it('requires the read-only time fields, when present, to be strings', () => {
    expectViolation({ ...dataplane(), creationTime: 5 }, 'creationTime', 'must be a string (quote it: "5")');
    expectViolation({ ...dataplane(), modificationTime: {} }, 'modificationTime', 'must be a string');
  });

  it('rejects unknown top-level fields instead of dropping them', () => {
    expect(violationsOf({ ...dataplane(), spec: {}, 'meta.data': 1 })).toEqual([
      { field: 'spec', message: 'unknown field' },
      { field: '["meta.data"]', message: 'unknown field' },
    ]);
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

  it('refuses fields a Mesh does not have yet, such as Kuma policies', () => {
    expect(violationsOf({ type: 'Mesh', name: 'default', mtls: { enabledBackend: 'ca-1' }, networking: {} })).toEqual([
      { field: 'mtls', message: 'unknown field' },
      { field: 'networking', message: 'unknown field' },
    ]);
  });

  it('refuses a dot in a mesh name, because node ids are "<mesh>.<name>"', () => {
    expectViolation({ type: 'Mesh', name: 'team.a' }, 'name', /no '\.': node ids are "<mesh>\.<name>"/);
  });

  it('refuses mesh names longer than a DNS label', () => {
    expectViolation({ type: 'Mesh', name: 'm'.repeat(64) }, 'name', 'must be at most 63 characters');
  });
});

describe('validateResource: Dataplane networking', () => {
  it('requires a mesh, and a valid one', () => {
    expectViolation({ ...dataplane(), mesh: undefined }, 'mesh', 'is required');
    expectViolation({ ...dataplane(), mesh: 'Default' }, 'mesh', /^must consist of lower case alphanumeric characters or '-'/);
  });

  it('requires networking, as an object', () => {
    expectViolation({ ...dataplane(), networking: undefined }, 'networking', 'is required');
    expectViolation({ ...dataplane(), networking: 'lo' }, 'networking', 'must be an object');
  });

  it('requires networking.address, as an IP address or domain name', () => {
    expectViolation(withNetworking((networking) => delete networking.address), 'networking.address', 'is required');
    for (const address of ['not an address', '999.0.0.1', 'a..b', '-a.com', 'http://a']) {
      expectViolation(
        withNetworking((networking) => (networking.address = address)),
        'networking.address',
        'must be a valid IP address or domain name',
      );
    }
  });

  it('refuses the wildcard addresses: other proxies could not connect to them', () => {
    for (const address of ['0.0.0.0', '::']) {
      expectViolation(withNetworking((networking) => (networking.address = address)), 'networking.address', 'must not be 0.0.0.0 or ::');
    }
  });

  it('requires advertisedAddress, when set, to be an IP address or domain name', () => {
    expectViolation(
      withNetworking((networking) => (networking.advertisedAddress = 'a b')),
      'networking.advertisedAddress',
      'must be a valid IP address or domain name',
    );
  });

  it('requires at least one inbound or outbound', () => {
    const input = withNetworking((networking) => {
      networking.inbound = [];
      delete networking.outbound;
    });
    expectViolation(input, 'networking', 'must have at least one inbound or outbound');
  });

  it('requires inbound and outbound to be arrays of objects', () => {
    expect(
      violationsOf(
        withNetworking((networking) => {
          networking.inbound = { port: 1 };
          networking.outbound = [5];
        }),
      ),
    ).toEqual([
      { field: 'networking.inbound', message: 'must be an array' },
      { field: 'networking.outbound[0]', message: 'must be an object' },
    ]);
  });

  it('rejects unknown networking fields', () => {
    expectViolation(withNetworking((networking) => (networking.transparentProxying = {})), 'networking.transparentProxying', 'unknown field');
  });
});

describe('validateResource: inbound', () => {
  const withInbound = (change: (inbound: Record<string, any>) => void) =>
    withNetworking((networking) => change(networking.inbound[0]));

  it('requires port, an integer in [1, 65535]', () => {
    expectViolation(withInbound((inbound) => delete inbound.port), 'networking.inbound[0].port', 'is required');
    for (const port of [0, 65536, -80]) {
      expectViolation(withInbound((inbound) => (inbound.port = port)), 'networking.inbound[0].port', 'must be in the range [1, 65535]');
    }
    for (const port of ['8080', 80.5, true, Number.NaN]) {
      expectViolation(withInbound((inbound) => (inbound.port = port)), 'networking.inbound[0].port', 'must be an integer');
    }
  });

  it('requires servicePort, when set, in [1, 65535]', () => {
    expectViolation(withInbound((inbound) => (inbound.servicePort = 70000)), 'networking.inbound[0].servicePort', 'must be in the range [1, 65535]');
  });

  it('requires address and serviceAddress, when set, to be IP addresses: Envoy binds them', () => {
    expectViolation(withInbound((inbound) => (inbound.address = 'backend.local')), 'networking.inbound[0].address', 'must be a valid IP address');
    expectViolation(withInbound((inbound) => (inbound.serviceAddress = 'x')), 'networking.inbound[0].serviceAddress', 'must be a valid IP address');
  });

  it('requires tags with "kuma.io/service"', () => {
    expectViolation(withInbound((inbound) => delete inbound.tags), 'networking.inbound[0].tags', '"kuma.io/service" is required');
    expectViolation(withInbound((inbound) => (inbound.tags = { version: 'v1' })), 'networking.inbound[0].tags', '"kuma.io/service" is required');
    expectViolation(withInbound((inbound) => (inbound.tags = 'backend')), 'networking.inbound[0].tags', 'must be an object');
  });

  it('requires a non-empty service', () => {
    expectViolation(
      withInbound((inbound) => (inbound.tags['kuma.io/service'] = '')),
      'networking.inbound[0].tags["kuma.io/service"]',
      'tag value must be non-empty',
    );
  });

  it('reports a service that is not a string once, at the tag', () => {
    expectViolation(
      withInbound((inbound) => (inbound.tags['kuma.io/service'] = 5)),
      'networking.inbound[0].tags["kuma.io/service"]',
      'must be a string (quote it: "5")',
    );
  });

  it('allows only the known protocols', () => {
    for (const protocol of ['tcp', 'http', 'http2', 'grpc']) {
      expect(() => validateResource(withInbound((inbound) => (inbound.tags['kuma.io/protocol'] = protocol)))).not.toThrow();
    }
    expectViolation(
      withInbound((inbound) => (inbound.tags['kuma.io/protocol'] = 'kafka')),
      'networking.inbound[0].tags["kuma.io/protocol"]',
      'must be one of tcp, http, http2, grpc',
    );
  });

  it('checks tag names and values', () => {
    const input = withInbound((inbound) => {
      inbound.tags[''] = 'x';
      inbound.tags['team name'] = 'a';
      inbound.tags.version = 'v 1';
      inbound.tags.zone = '';
      inbound.tags.build = 2;
    });
    expect(violationsOf(input)).toEqual([
      { field: 'networking.inbound[0].tags[""]', message: 'key must be non-empty' },
      { field: 'networking.inbound[0].tags["build"]', message: 'must be a string (quote it: "2")' },
      {
        field: 'networking.inbound[0].tags["team name"]',
        message: 'tag name must consist of alphanumeric characters, dots, dashes, colons, slashes and underscores',
      },
      {
        field: 'networking.inbound[0].tags["version"]',
        message: 'tag value must consist of alphanumeric characters, dots, dashes, colons and underscores',
      },
      { field: 'networking.inbound[0].tags["zone"]', message: 'tag value must be non-empty' },
    ]);
  });

  it('rejects unknown inbound fields', () => {
    expectViolation(withInbound((inbound) => (inbound.serviceProbe = {})), 'networking.inbound[0].serviceProbe', 'unknown field');
  });
});

describe('validateResource: outbound', () => {
  const withOutbound = (change: (outbound: Record<string, any>) => void) =>
    withNetworking((networking) => change(networking.outbound[0]));

  it('requires port, an integer in [1, 65535]', () => {
    expectViolation(withOutbound((outbound) => delete outbound.port), 'networking.outbound[0].port', 'is required');
    expectViolation(withOutbound((outbound) => (outbound.port = 0)), 'networking.outbound[0].port', 'must be in the range [1, 65535]');
    expectViolation(withOutbound((outbound) => (outbound.port = '10001')), 'networking.outbound[0].port', 'must be an integer');
  });

  it('requires address, when set, to be an IP address', () => {
    expectViolation(withOutbound((outbound) => (outbound.address = 'localhost')), 'networking.outbound[0].address', 'must be a valid IP address');
  });

  it('requires tags with "kuma.io/service"', () => {
    expectViolation(withOutbound((outbound) => (outbound.tags = {})), 'networking.outbound[0].tags', '"kuma.io/service" is required');
  });

  it('rejects unknown outbound fields', () => {
    expectViolation(withOutbound((outbound) => (outbound.service = 'web')), 'networking.outbound[0].service', 'unknown field');
  });
});

describe('validateResource: admin', () => {
  it('requires admin.port in [1, 65535]', () => {
    expectViolation(withNetworking((networking) => (networking.admin.port = 0)), 'networking.admin.port', 'must be in the range [1, 65535]');
    expectViolation(withNetworking((networking) => (networking.admin = {})), 'networking.admin.port', 'is required');
  });

  it('rejects unknown admin fields', () => {
    expectViolation(withNetworking((networking) => (networking.admin.address = '0.0.0.0')), 'networking.admin.address', 'unknown field');
  });
});

describe('validateResource: listeners that cannot all bind', () => {
  const service = (name: string) => ({ 'kuma.io/service': name });

  it('refuses two inbounds on the same address and port', () => {
    const input = withNetworking((networking) => networking.inbound.push({ port: 18080, tags: service('other') }));
    expectViolation(input, 'networking.inbound[1].port', 'port 18080 on 127.0.0.1 is already used by networking.inbound[0]');
  });

  it('allows the same inbound port on two addresses', () => {
    const input = withNetworking((networking) =>
      networking.inbound.push({ port: 18080, address: '127.0.0.2', tags: service('other') }),
    );
    expect(() => validateResource(input)).not.toThrow();
  });

  it('refuses two outbounds on the same port', () => {
    const input = withNetworking((networking) => networking.outbound.push({ port: 10001, tags: service('db') }));
    expectViolation(input, 'networking.outbound[1].port', 'port 10001 on 127.0.0.1 is already used by networking.outbound[0]');
  });

  it('allows the same outbound port on two addresses', () => {
    const input = withNetworking((networking) =>
      networking.outbound.push({ port: 10001, address: '127.0.0.5', tags: service('db') }),
    );
    expect(() => validateResource(input)).not.toThrow();
  });

  it('refuses an outbound on the port of an inbound bound to the loopback', () => {
    const input = withNetworking((networking) => networking.outbound.push({ port: 18080, tags: service('db') }));
    expectViolation(input, 'networking.outbound[1].port', 'port 18080 on 127.0.0.1 is already used by networking.inbound[0]');
  });

  it('refuses an admin port already used by an outbound', () => {
    const input = withNetworking((networking) => (networking.admin.port = 10001));
    expectViolation(input, 'networking.admin.port', 'port 10001 on 127.0.0.1 is already used by networking.outbound[0]');
  });

  it('still finds a clash next to an invalid inbound', () => {
    const input = withNetworking((networking) => {
      networking.inbound.push({ port: 0, tags: service('a') }, { port: 18080, tags: service('b') });
    });
    expect(violationsOf(input)).toEqual([
      { field: 'networking.inbound[1].port', message: 'must be in the range [1, 65535]' },
      { field: 'networking.inbound[2].port', message: 'port 18080 on 127.0.0.1 is already used by networking.inbound[0]' },
    ]);
  });
});

describe('validateResource: every violation at once', () => {
  it('reports the three problems of a Dataplane with three problems', () => {
    const input = withNetworking((networking) => {
      delete networking.inbound[0].tags['kuma.io/service'];
      networking.inbound.push({ port: 70000, tags: { 'kuma.io/service': 'backend' } });
      networking.outbound[0].colour = 'blue';
    });

    const error = (() => {
      try {
        validateResource(input);
      } catch (caught) {
        return caught as ValidationError;
      }
      throw new Error('expected a ValidationError');
    })();

    expect(error.violations).toEqual([
      { field: 'networking.inbound[0].tags', message: '"kuma.io/service" is required' },
      { field: 'networking.inbound[1].port', message: 'must be in the range [1, 65535]' },
      { field: 'networking.outbound[0].colour', message: 'unknown field' },
    ]);
    expect(error.title).toBe('Dataplane "backend-1" in mesh "default" is not valid');
    expect(error.message).toContain('networking.inbound[0].tags: "kuma.io/service" is required');
  });

  it('reports meta and spec problems together', () => {
    expect(violationsOf({ type: 'Dataplane', name: 'Bad Name', version: 0, networking: { address: '' } })).toEqual([
      { field: 'name', message: expect.stringMatching(/^must consist of/) },
      { field: 'mesh', message: 'is required' },
      { field: 'version', message: 'must be a positive integer' },
      { field: 'networking.address', message: 'must be a valid IP address or domain name' },
      { field: 'networking', message: 'must have at least one inbound or outbound' },
    ]);
  });
});

describe('validateResource: what the URL says', () => {
  it('refuses a body whose name differs from the URL', () => {
    expect(violationsOf(dataplane(), { type: 'Dataplane', mesh: 'default', name: 'backend-2' })).toEqual([
      { field: 'name', message: 'name from the URL is "backend-2", name in the body is "backend-1"' },
    ]);
  });

  it('refuses a body whose mesh differs from the URL', () => {
    expect(violationsOf(dataplane(), { type: 'Dataplane', mesh: 'other', name: 'backend-1' })).toEqual([
      { field: 'mesh', message: 'mesh from the URL is "other", mesh in the body is "default"' },
    ]);
  });

  it('refuses a body of another type than the URL', () => {
    expect(violationsOf({ type: 'Mesh', name: 'default' }, { type: 'Dataplane', name: 'default' })).toEqual([
      { field: 'type', message: 'type from the URL is "Dataplane", type in the body is "Mesh"' },
    ]);
  });

  it('names the resource of the URL in the error title', () => {
    const input = withNetworking((networking) => (networking.admin.port = 0));
    expect(() => validateResource(input, { type: 'Dataplane', mesh: 'default', name: 'backend-1' })).toThrow(
      'Dataplane "backend-1" in mesh "default" is not valid: networking.admin.port: must be in the range [1, 65535]',
    );
    expect(() => validateResource({ type: 'Mesh', name: 'x', mtls: {} }, { type: 'Mesh', name: 'x' })).toThrow(
      'Mesh "x" is not valid: mtls: unknown field',
    );
  });

  it('accepts a body that matches', () => {
    const input: ResourceInput<'Dataplane'> = validateResource(dataplane(), { type: 'Dataplane', mesh: 'default', name: 'backend-1' });
    expect(input.spec.networking.address).toBe('127.0.0.1');
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
    input.spec.networking.outbound![0]!.tags = {};
    input.version = 0;

    expect(() => validateResourceInput(input)).toThrow(
      expect.objectContaining({
        title: 'Dataplane "backend-1" in mesh "default" is not valid',
        violations: [
          { field: 'version', message: 'must be a positive integer' },
          { field: 'networking.inbound[0].port', message: 'must be in the range [1, 65535]' },
          { field: 'networking.outbound[0].tags', message: '"kuma.io/service" is required' },
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
      { numRuns: 2000 },
    );
  });
});
