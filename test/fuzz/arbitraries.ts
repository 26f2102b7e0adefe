import fc from 'fast-check';
import { PROTOCOLS, PROTOCOL_TAG, SERVICE_TAG } from '../../src/shared/resources.js';

/** Generators of resources in the Kuma API shape (what a user PUTs or writes in YAML), valid or nearly so. */

export const meshName = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,14}[a-z0-9])?$/);
// Kuma's resource names: lowercase RFC 1123 subdomains.
export const resourceName = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?){0,2}$/);
const tagValue = fc.stringMatching(/^[a-zA-Z0-9.\-_:]{1,16}$/);
const ip = fc.oneof(fc.ipV4(), fc.ipV6());
const host = fc.oneof(ip, fc.domain()).filter((address) => address !== '0.0.0.0' && address !== '::');

const tags = fc
  .record({ service: tagValue, protocol: fc.option(fc.constantFrom(...PROTOCOLS), { nil: undefined }) })
  .map(({ service, protocol }) => ({ [SERVICE_TAG]: service, ...(protocol && { [PROTOCOL_TAG]: protocol }) }));

/** A valid Dataplane in the API shape; every listener on its own port, so that none clash. */
export function validDataplane(mesh: fc.Arbitrary<string> = meshName, name: fc.Arbitrary<string> = resourceName) {
  return fc
    .record({
      mesh,
      name,
      labels: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
      address: host,
      ports: fc.uniqueArray(fc.integer({ min: 1, max: 65535 }), { minLength: 4, maxLength: 4 }),
      inbound: fc.array(tags, { maxLength: 2 }),
      outbound: fc.array(tags, { maxLength: 2 }),
    })
    .filter(({ inbound, outbound }) => inbound.length + outbound.length > 0)
    .map(({ mesh, name, labels, address, ports, inbound, outbound }) => ({
      type: 'Dataplane',
      mesh,
      name,
      labels,
      networking: {
        address,
        ...(inbound.length > 0 && { inbound: inbound.map((each, index) => ({ port: ports[index]!, tags: each })) }),
        ...(outbound.length > 0 && { outbound: outbound.map((each, index) => ({ port: ports[2 + index]!, tags: each })) }),
      },
    }));
}

const text = fc.oneof(fc.string(), fc.constantFrom('', 'default', 'backend-1', 'kuma.io/service', '127.0.0.1', '::', '0.0.0.0'));
const anything = fc.oneof(fc.jsonValue({ maxDepth: 3 }), text, fc.integer({ min: -2, max: 70000 }));

/** Objects shaped like a resource with any field wrong, missing or of another type. */
export const resourceLike = fc.record(
  {
    type: fc.oneof(fc.constantFrom('Mesh', 'Dataplane'), anything),
    mesh: fc.oneof(fc.constant('default'), anything),
    name: fc.oneof(fc.constant('backend-1'), anything),
    labels: fc.oneof(fc.dictionary(text, anything, { maxKeys: 3 }), anything),
    version: anything,
    networking: fc.oneof(
      anything,
      fc.record(
        {
          address: fc.oneof(text, anything),
          inbound: fc.oneof(fc.array(fc.record({ port: anything, tags: anything }, { requiredKeys: [] }), { maxLength: 2 }), anything),
          outbound: fc.oneof(fc.array(fc.record({ port: anything, tags: anything }, { requiredKeys: [] }), { maxLength: 2 }), anything),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);

/** Text a parser can choke on: deep nesting, alias bombs, tags, several documents, control characters. */
export const hostileText = fc.constantFrom(
  '['.repeat(50_000),
  '{"a":'.repeat(20_000),
  `${'- '.repeat(5_000)}x`,
  'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n',
  '!!binary aGVsbG8=',
  '!custom {type: Dataplane}',
  'type: Dataplane\n---\ntype: Mesh\n',
  '{"type": "Dataplane", "type": "Mesh"}',
  '\u0000\u0001\u0002',
  '\uFEFF{"type": "Mesh", "name": "x"}',
  '? [a, b]\n: c',
  '*unknown',
  '{"__proto__": {"polluted": true}, "type": "Mesh", "name": "proto"}',
  'type: Mesh\nname: x\nconstructor: {prototype: {polluted: true}}',
);
