// The encoder's shortcuts (parts cached by object, well-known values by value, resources by JSON
// text or by bytes) must never change a byte: every resource meshdesk generates, with the policy
// plugins at work, encodes to exactly what protobufjs writes, by every path.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { PolicySpec } from '../../policies/core/policy.js';
import { dataplaneResource, meshResource, policyResource } from '../../policies/core/testing/resources.js';
import { POLICY_PLUGINS } from '../../policies/registry.js';
import { buildMeshContext } from '../context/build-mesh-context.js';
import { goldenCases } from '../generate/golden-files.js';
import { generateProxy } from '../generate/profile.js';
import type { GeneratedResources } from '../generate/resources.js';
import { EncodedResourceCache } from '../sync/encoded-resource-cache.js';
import { decodeResource } from './decode.js';
import { encodeResource } from './encode.js';
import type { ProtoJson } from './proto-json.js';
import { messageType } from './proto-root.js';
import { expectProtobufjsBytes } from './testing/protobufjs-bytes.js';
import { TYPE_URL_PREFIX, XDS_TYPE_URLS } from './type-urls.js';

/** A web proxy calling two services, under a policy of each type the bench uses, mesh-wide and per service. */
function generatedWithPolicies(): GeneratedResources {
  const backend = (name: string, address: string) => dataplaneResource(`${name}-1`, [{ port: 9000, tags: { 'kuma.io/service': name, 'kuma.io/protocol': 'http' } }], { address });
  const web = dataplaneResource('web-1', [{ port: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }], { address: '127.0.0.1' });
  const client = {
    ...web,
    spec: { networking: { ...web.spec.networking, outbound: ['api', 'db'].map((service, index) => ({ port: 10001 + index, tags: { 'kuma.io/service': service } })) } },
  };
  const toAll = (conf: object): Pick<PolicySpec, 'to'> => ({
    to: [
      { targetRef: { kind: 'Mesh' }, default: conf },
      { targetRef: { kind: 'MeshService', name: 'api' }, default: conf },
    ],
  });
  const policies = [
    policyResource('MeshTimeout', 'timeouts', { targetRef: { kind: 'Mesh' }, ...toAll({ connectionTimeout: '3s', idleTimeout: '1h', http: { requestTimeout: '15s' } }) }),
    policyResource('MeshRetry', 'retries', { targetRef: { kind: 'Mesh' }, ...toAll({ http: { numRetries: 3, perTryTimeout: '2s', retryOn: ['5xx', 'Reset'] } }) }),
    policyResource('MeshCircuitBreaker', 'breakers', {
      targetRef: { kind: 'Mesh' },
      ...toAll({ connectionLimits: { maxConnections: 100, maxPendingRequests: 50 }, outlierDetection: { detectors: { totalFailures: { consecutive: 5 } } } }),
    }),
    policyResource('MeshHealthCheck', 'checks', {
      targetRef: { kind: 'Mesh' },
      ...toAll({ interval: '10s', timeout: '2s', unhealthyThreshold: 3, healthyThreshold: 1, http: { path: '/health' } }),
    }),
    policyResource('MeshLoadBalancingStrategy', 'least-request', { targetRef: { kind: 'Mesh' }, ...toAll({ loadBalancer: { type: 'LeastRequest' } }) }),
  ];
  const context = buildMeshContext(meshResource(), [client, backend('api', '127.0.0.2'), backend('db', '127.0.0.3')], { policies });
  return generateProxy(context, { id: 'default.web-1', dataplane: client, kind: 'envoy' }, POLICY_PLUGINS).resources;
}

/** Every resource of the generator golden files and of a proxy with policies, as JSON parsed anew. */
function generatedResources(): { label: string; typeUrl: string; resource: ProtoJson }[] {
  const all = [{ label: 'with policies', generated: generatedWithPolicies() }];
  for (const suite of ['inbound-proxy', 'outbound-proxy', 'proxyless-grpc', 'secrets']) {
    for (const { name, goldenPath } of goldenCases(suite)) {
      all.push({ label: `${suite}/${name}`, generated: parse(fs.readFileSync(goldenPath, 'utf8')) as GeneratedResources });
    }
  }
  return all.flatMap(({ label, generated }) =>
    XDS_TYPE_URLS.flatMap((typeUrl) => generated[typeUrl].map(({ name, resource }) => ({ label: `${label} ${name}`, typeUrl, resource: copied(resource) }))),
  );
}

function copied<T>(json: T): T {
  return JSON.parse(JSON.stringify(json)) as T;
}

/** A copy-on-write edit that changes nothing: new objects down to `depth`, the original's parts below. */
function sharingCopy(json: unknown, depth: number): unknown {
  if (typeof json !== 'object' || json === null || depth === 0) return json;
  if (Array.isArray(json)) return json.map((item) => sharingCopy(item, depth - 1));
  return Object.fromEntries(Object.entries(json).map(([key, value]) => [key, sharingCopy(value, depth - 1)]));
}

describe('encoding generated resources', () => {
  const resources = generatedResources();

  it('covers every type with content', () => {
    expect(new Set(resources.map(({ typeUrl }) => typeUrl)).size).toBe(XDS_TYPE_URLS.length);
    expect(resources.length).toBeGreaterThan(50);
  });

  it('writes the bytes protobufjs writes, holding the JSON given', () => {
    for (const { label, typeUrl, resource } of resources) {
      const { value } = encodeResource(typeUrl, resource);
      expectProtobufjsBytes(messageType(typeUrl.slice(TYPE_URL_PREFIX.length)), value);
      // Decoding leaves out fields at their default value (`codec_client_type: HTTP1`): all the others are there.
      expect({ '@type': typeUrl, ...resource }, label).toMatchObject(decodeResource({ type_url: typeUrl, value }));
    }
  });

  it('writes the same bytes for equal content by every cached path: by object, by parts, by JSON text, by bytes', () => {
    const cache = new EncodedResourceCache();
    for (const { label, typeUrl, resource } of resources) {
      const cold = encodeResource(typeUrl, copied(resource)).value;
      const paths = [resource, resource, sharingCopy(resource, 1), sharingCopy(resource, 3), copied(resource)] as ProtoJson[];
      const anys = paths.map((json) => cache.encode(typeUrl, json));
      for (const any of anys) expect(Buffer.from(any.value), label).toEqual(Buffer.from(cold));
      expect(new Set(anys).size, `${label}: one Any for one content`).toBe(1);
    }
  });
});
