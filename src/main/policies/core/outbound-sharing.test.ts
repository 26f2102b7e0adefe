import { describe, expect, it } from 'vitest';
import type { PolicyType } from '../../../shared/policy-types.js';
import type { DataplaneResource, Inbound } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { generateProxy } from '../../xds/generate/profile.js';
import type { GeneratedResources } from '../../xds/generate/resources.js';
import { XDS_TYPE_URLS } from '../../xds/protocol/type-urls.js';
import { dataplaneResource, meshResource, policyResource } from './testing/resources.js';

// The invariant behind a next proxy's cost: proxies generated from one MeshContext with the same
// outbounds share every outbound resource, and every part of it, as the very same objects (which
// the encoder then encodes once), whatever mesh-wide policies change them. Only the proxy's own
// values (written last, proxy-bound.ts) may differ, and only the path to them is the proxy's own.

const backend = (service: string, protocol: string, address: string): DataplaneResource =>
  dataplaneResource(`${service}-1`, [{ port: 9000, tags: { 'kuma.io/service': service, 'kuma.io/protocol': protocol } }], { address });

/** A client of every backend: its own service, address, tags and labels; the same outbounds. */
function client(name: string, address: string, inbound: Inbound, labels: Record<string, string>): DataplaneResource {
  const dataplane = dataplaneResource(name, [inbound], { address, labels });
  const outbound = ['http-backend', 'tcp-backend', 'grpc-backend'].map((service, index) => ({ port: 10001 + index, tags: { 'kuma.io/service': service } }));
  return { ...dataplane, spec: { networking: { ...dataplane.spec.networking, outbound } } };
}

const web = client('web-1', '10.0.0.1', { port: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http', version: 'v1' } }, {
  'kuma.io/zone': 'zone-1',
  'kuma.io/workload': 'web',
});
const api = client('api-7', '10.0.0.7', { port: 8081, tags: { 'kuma.io/service': 'api', 'kuma.io/protocol': 'http', team: 'core' } }, {
  'kuma.io/zone': 'zone-2',
  'kuma.io/workload': 'api',
});

/** Every Kuma placeholder, in a plain and a JSON format. */
const KUMA_FORMAT =
  '%KUMA_MESH% %KUMA_ZONE% %KUMA_WORKLOAD% %KUMA_SOURCE_ADDRESS% %KUMA_SOURCE_ADDRESS_WITHOUT_PORT% %KUMA_SOURCE_SERVICE%->%KUMA_DESTINATION_SERVICE% %KUMA_TRAFFIC_DIRECTION% %RESPONSE_CODE%';

const meshWide = (type: PolicyType, conf: object) => policyResource(type, type.toLowerCase(), { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: conf }] });

const policies = [
  meshWide('MeshTimeout', { connectionTimeout: '3s', idleTimeout: '1h', http: { requestTimeout: '10s', streamIdleTimeout: '30s' } }),
  meshWide('MeshRetry', { http: { numRetries: 3, perTryTimeout: '2s', retryOn: ['5xx', 'Reset'] }, tcp: { maxConnectAttempt: 4 }, grpc: { numRetries: 2, retryOn: ['Unavailable'] } }),
  meshWide('MeshCircuitBreaker', {
    connectionLimits: { maxConnections: 100, maxPendingRequests: 50 },
    outlierDetection: { disabled: false, detectors: { totalFailures: { consecutive: 5 }, gatewayFailures: { consecutive: 3 } } },
  }),
  meshWide('MeshHealthCheck', { interval: '10s', timeout: '2s', unhealthyThreshold: 3, healthyThreshold: 1, http: { path: '/health' }, tcp: {} }),
  meshWide('MeshLoadBalancingStrategy', {
    localityAwareness: { disabled: true },
    loadBalancer: { type: 'LeastRequest', leastRequest: { choiceCount: 3 } },
    hashPolicies: [{ type: 'Header', header: { name: 'x-user' } }],
  }),
  meshWide('MeshAccessLog', {
    backends: [
      { type: 'File', file: { path: '/tmp/plain.log', format: { type: 'Plain', plain: KUMA_FORMAT } } },
      { type: 'File', file: { path: '/tmp/json.log', format: { type: 'Json', json: [{ key: 'line', value: KUMA_FORMAT }, { key: 'mesh', value: '%KUMA_MESH%' }] } } },
      { type: 'File', file: { path: '/tmp/default.log' } },
      { type: 'Tcp', tcp: { address: '127.0.0.1:5000', format: { type: 'Plain', plain: KUMA_FORMAT } } },
    ],
  }),
  meshWide('MeshFaultInjection', { http: [{ delay: { percentage: 50, value: '1s' } }] }),
  meshWide('MeshRateLimit', { local: { http: { requestRate: { num: 100, interval: '1s' } } } }),
  policyResource('MeshHTTPRoute', 'to-http-backend', {
    targetRef: { kind: 'Mesh' },
    to: [
      {
        targetRef: { kind: 'MeshService', name: 'http-backend' },
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/v2' } }],
            default: {
              backendRefs: [
                { kind: 'MeshService', name: 'http-backend', weight: 90 },
                { kind: 'MeshServiceSubset', name: 'http-backend', tags: { version: 'v2' }, weight: 10 },
              ],
            },
          },
        ],
      },
    ],
  }),
  policyResource('MeshTCPRoute', 'to-tcp-backend', {
    targetRef: { kind: 'Mesh' },
    to: [{ targetRef: { kind: 'MeshService', name: 'tcp-backend' }, rules: [{ default: { backendRefs: [{ kind: 'MeshService', name: 'tcp-backend', weight: 1 }] } }] }],
  }),
];

/** What differs between two proxies' resources of one name: leaves that differ, and equal parts that are not the same object. */
interface Differences {
  values: { at: string; mine: unknown; theirs: unknown }[];
  unshared: string[];
}

function compare(mine: unknown, theirs: unknown, at: string, found: Differences): boolean {
  if (mine === theirs) return true;
  const objects = typeof mine === 'object' && mine !== null && typeof theirs === 'object' && theirs !== null;
  if (!objects || Array.isArray(mine) !== Array.isArray(theirs)) {
    found.values.push({ at, mine, theirs });
    return false;
  }
  const keys = new Set([...Object.keys(mine), ...Object.keys(theirs)]);
  const childrenEqual = [...keys]
    .map((key) => compare((mine as Record<string, unknown>)[key], (theirs as Record<string, unknown>)[key], Array.isArray(mine) ? `${at}[${key}]` : `${at}.${key}`, found))
    .every(Boolean);
  // Equal content in two objects: the encoder encodes it twice. Reported once, at its top.
  if (childrenEqual) found.unshared.push(at || '(the resource)');
  return childrenEqual;
}

const byName = (resources: GeneratedResources, typeUrl: (typeof XDS_TYPE_URLS)[number]) => new Map(resources[typeUrl].map(({ name, resource }) => [name, resource]));

/** The proxy's own values, in the spelling each place writes them. */
const OWN_VALUES: [string, string][] = [
  ['/run/web/kuma-al-web-1-default.sock', '/run/api/kuma-al-api-7-default.sock'],
  ['kri_wl_default_zone-1__web_', 'kri_wl_default_zone-2__api_'],
  ['&kuma.io/protocol=http&&kuma.io/service=web&&version=v1&', '&kuma.io/protocol=http&&kuma.io/service=api&&team=core&'],
  ['10.0.0.1', '10.0.0.7'],
  ['zone-1', 'zone-2'],
  ['web', 'api'],
];

describe('outbound resources of two proxies of different services, with mesh-wide policies of every type', () => {
  const context = buildMeshContext(meshResource(), [web, api, backend('http-backend', 'http', '10.0.1.1'), backend('tcp-backend', 'tcp', '10.0.1.2'), backend('grpc-backend', 'grpc', '10.0.1.3')], {
    policies,
  });
  const [fromWeb, fromApi] = [web, api].map((dataplane) =>
    generateProxy(context, { id: `default.${dataplane.meta.name}`, dataplane, kind: 'envoy', workDir: `/run/${dataplane.meta.name.split('-')[0]}` }).resources,
  );

  const differences = XDS_TYPE_URLS.flatMap((typeUrl) => {
    const theirs = byName(fromApi!, typeUrl);
    return [...byName(fromWeb!, typeUrl)].flatMap(([name, mine]) => {
      if (!theirs.has(name)) return [];
      const found: Differences = { values: [], unshared: [] };
      compare(mine, theirs.get(name), '', found);
      return [{ resource: `${typeUrl.split('.').at(-1)} ${name}`, ...found }];
    });
  });

  it('generates the outbounds of both proxies, each changed by the policies', () => {
    const outbound = differences.map(({ resource }) => resource);
    expect(outbound).toEqual(expect.arrayContaining(['Cluster http-backend', 'Cluster tcp-backend', 'Cluster grpc-backend', 'Listener outbound:127.0.0.1:10001']));
  });

  it('shares every equal part of them as the same object', () => {
    expect(differences.flatMap(({ resource, unshared }) => unshared.map((at) => `${resource} ${at}`))).toEqual([]);
  });

  it("lets them differ only in the proxy's own values", () => {
    const places = new Set(differences.flatMap(({ resource, values }) => values.map(({ at }) => `${resource.split(' ')[0]} ${at}`)));
    const logs = 'Listener .filter_chains[0].filters[0].typed_config.access_log';
    expect([...places]).toEqual([
      // MeshHealthCheck's x-kuma-tags, and those MeshFaultInjection has every caller send.
      'Cluster .health_checks[0].http_health_check.request_headers_to_add[0].header.value',
      'Listener .filter_chains[0].filters[0].typed_config.route_config.request_headers_to_add[0].header.value',
      // MeshAccessLog's formats with Kuma's placeholders, and kuma-dp's socket.
      `${logs}[0].typed_config.log_format.text_format_source.inline_string`,
      `${logs}[1].typed_config.log_format.json_format.line`,
      `${logs}[2].typed_config.log_format.text_format_source.inline_string`,
      `${logs}[3].typed_config.path`,
      `${logs}[3].typed_config.log_format.json_format.message`,
    ]);
    const swapped = (text: string) => OWN_VALUES.reduce((result, [mine, theirs]) => result.replaceAll(mine, theirs), text);
    for (const { resource, values } of differences) {
      for (const { at, mine, theirs } of values) {
        expect(typeof mine, `${resource} ${at}`).toBe('string');
        expect(swapped(mine as string), `${resource} ${at}`).toEqual(theirs);
      }
    }
  });
});
