import { describe, expect, it } from 'vitest';
import type { DataplaneResource, MeshResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { follows } from '../../xds/context/carried-memo.js';
import type { MeshContext } from '../../xds/context/mesh-context.js';
import { generateProxy } from '../../xds/generate/profile.js';
import { FEATURE_REUSE_PORT } from '../../xds/generate/proxy.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, type XdsTypeUrl } from '../../xds/protocol/type-urls.js';
import type { PolicyResource } from './policy.js';
import { computeProxyRules } from './proxy-rules.js';
import { dataplaneResource, meshResource, policyResource } from './testing/resources.js';

// A tick after a change builds a new MeshContext, all of its objects new. What did not change must
// come out as the very objects of the last tick (so that nothing is edited or encoded again), and
// what did must come out exactly as a generation from scratch would make it.

const backend = (service: string, index: number, protocol = 'http'): DataplaneResource =>
  dataplaneResource(`${service}-${index}`, [{ port: 9000, tags: { 'kuma.io/service': service, 'kuma.io/protocol': protocol } }], { address: `10.1.0.${index}` });

const SERVICES = ['http-backend', 'other-backend', 'v2-backend'];

function client({ inboundPort = 8080, services = SERVICES } = {}): DataplaneResource {
  const dataplane = dataplaneResource('web-1', [{ port: inboundPort, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }]);
  const outbound = services.map((service, index) => ({ port: 10001 + index, tags: { 'kuma.io/service': service } }));
  return { ...dataplane, spec: { networking: { ...dataplane.spec.networking, outbound } } };
}

const meshWide = (type: PolicyResource['type'], conf: object) =>
  policyResource(type, type.toLowerCase(), { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: conf }] });

function policies(connectionTimeout = '3s'): PolicyResource[] {
  return [
    meshWide('MeshTimeout', { connectionTimeout, http: { requestTimeout: '10s' } }),
    meshWide('MeshRetry', { http: { numRetries: 3, retryOn: ['5xx'] } }),
    meshWide('MeshCircuitBreaker', { connectionLimits: { maxConnections: 100 }, outlierDetection: { detectors: { totalFailures: { consecutive: 5 } } } }),
    meshWide('MeshHealthCheck', { interval: '10s', timeout: '2s', unhealthyThreshold: 3, healthyThreshold: 1, http: { path: '/health' } }),
    meshWide('MeshLoadBalancingStrategy', { loadBalancer: { type: 'LeastRequest' } }),
    meshWide('MeshFaultInjection', { http: [{ delay: { percentage: 50, value: '1s' } }] }),
    policyResource('MeshHTTPRoute', 'split', {
      targetRef: { kind: 'Mesh' },
      to: [
        {
          targetRef: { kind: 'MeshService', name: 'http-backend' },
          rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/v2' } }], default: { backendRefs: [{ kind: 'MeshService', name: 'http-backend', weight: 90 }, { kind: 'MeshService', name: 'v2-backend', weight: 10 }] } }],
        },
      ],
    }),
  ];
}

const BACKENDS = [backend('http-backend', 1), backend('other-backend', 2), backend('v2-backend', 3)];

const BEFORE: MeshInputs = { dataplanes: [...BACKENDS, client()], policies: policies() };

interface MeshInputs {
  dataplanes: DataplaneResource[];
  policies: PolicyResource[];
  meshSpec?: MeshResource['spec'];
  /** The client proxy's features (kuma-dp's), none by default. */
  features?: ReadonlySet<string>;
}

const lastContexts = new Map<string, MeshContext>();

/** Every input in mesh `mesh`, following the mesh's last context as the cache links them: each mesh starts from nothing. */
function contextIn(mesh: string, { dataplanes, policies, meshSpec = {} }: MeshInputs): MeshContext {
  const inMesh = <T extends { meta: { mesh: string } }>(resource: T): T => ({ ...resource, meta: { ...resource.meta, mesh } });
  const built = buildMeshContext({ ...meshResource(mesh), spec: meshSpec }, dataplanes.map(inMesh), { policies: policies.map(inMesh) });
  const last = lastContexts.get(mesh);
  const context = last ? follows(built, last) : built;
  lastContexts.set(mesh, context);
  return context;
}

function generate(context: MeshContext, features?: ReadonlySet<string>) {
  const dataplane = context.dataplanesByName.get('web-1')!;
  return generateProxy(context, { id: `${context.mesh.meta.name}.web-1`, dataplane, kind: 'envoy', features });
}

const resourceOf = (generated: ReturnType<typeof generate>, typeUrl: XdsTypeUrl, name: string) =>
  generated.resources[typeUrl].find((resource) => resource.name === name)?.resource;

const CHANGES: { change: string; after: MeshInputs }[] = [
  { change: 'an endpoint added to a service', after: { ...BEFORE, dataplanes: [...BEFORE.dataplanes, backend('other-backend', 4)] } },
  { change: 'a mesh-wide policy edited', after: { ...BEFORE, policies: policies('7s') } },
  // Routing reads the protocols of the services a route sends to, which its listener and rule do not show.
  { change: "a route's backend changing protocol", after: { ...BEFORE, dataplanes: BEFORE.dataplanes.map((dataplane) => (dataplane.meta.name === 'v2-backend-3' ? backend('v2-backend', 3, 'tcp') : dataplane)) } },
  // The proxy's own inputs: its inbounds and outbounds (its Dataplane), its mesh's mTLS, its features.
  { change: "the proxy's inbound moving to another port", after: { ...BEFORE, dataplanes: [...BACKENDS, client({ inboundPort: 8081 })] } },
  { change: "the proxy's outbounds losing one", after: { ...BEFORE, dataplanes: [...BACKENDS, client({ services: SERVICES.slice(1) })] } },
  { change: 'mTLS turned on in the mesh', after: { ...BEFORE, meshSpec: { mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] } } } },
  { change: 'the proxy starting to reuse its ports', after: { ...BEFORE, features: new Set([FEATURE_REUSE_PORT]) } },
];

describe('generation across contexts of one mesh', () => {
  it('gives a proxy the very objects of the last tick for everything a change did not touch', () => {
    const before = generate(contextIn('untouched', BEFORE));
    const after = generate(contextIn('untouched', CHANGES[0]!.after));

    for (const [typeUrl, name] of [
      [CLUSTER_TYPE_URL, 'http-backend'],
      [ENDPOINT_TYPE_URL, 'http-backend'],
      [LISTENER_TYPE_URL, 'outbound:127.0.0.1:10001'],
      [CLUSTER_TYPE_URL, 'other-backend'],
    ] as const) {
      expect(resourceOf(after, typeUrl, name), `${typeUrl} ${name}`).toBe(resourceOf(before, typeUrl, name));
    }
    const endpoints = (generated: ReturnType<typeof generate>) => JSON.stringify(resourceOf(generated, ENDPOINT_TYPE_URL, 'other-backend')).match(/socket_address/g)?.length;
    expect(endpoints(before)).toBe(1);
    expect(endpoints(after)).toBe(2);
  });

  it('keeps the rules of every type a policy edit did not touch, as the very objects of the last tick', () => {
    const rulesIn = (context: MeshContext, type: PolicyResource['type']) => computeProxyRules(context, context.dataplanesByName.get('web-1')!, type);
    const before = contextIn('rules', BEFORE);
    const [retries, timeouts] = [rulesIn(before, 'MeshRetry'), rulesIn(before, 'MeshTimeout')];
    const after = contextIn('rules', CHANGES[1]!.after);

    expect(rulesIn(after, 'MeshRetry')).toBe(retries);
    expect(rulesIn(after, 'MeshTimeout')).not.toBe(timeouts);
    expect(rulesIn(after, 'MeshTimeout').rules.to[0]!.conf).toMatchObject({ connectionTimeout: '7s' });
  });

  it("follows the endpoints of a route's subset cluster when one of them moves", () => {
    const versioned = (version: string, address: string) =>
      dataplaneResource(`other-backend-${version}`, [{ port: 9000, tags: { 'kuma.io/service': 'other-backend', 'kuma.io/protocol': 'http', version } }], { address });
    const subsetRoute = policyResource('MeshHTTPRoute', 'to-v2', {
      targetRef: { kind: 'Mesh' },
      to: [{ targetRef: { kind: 'MeshService', name: 'other-backend' }, rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], default: { backendRefs: [{ kind: 'MeshServiceSubset', name: 'other-backend', tags: { version: 'v2' } }] } }] }],
    });
    // The route alone: no other plugin reads the service's own endpoints, which change too.
    const inputs = (v2Address: string): MeshInputs => ({ dataplanes: [backend('http-backend', 1), versioned('v1', '10.1.0.5'), versioned('v2', v2Address), client()], policies: [subsetRoute] });
    const subsetEndpoints = (generated: ReturnType<typeof generate>) =>
      JSON.stringify(generated.resources[ENDPOINT_TYPE_URL].filter(({ name }) => name.startsWith('other-backend-')).map(({ resource }) => resource));

    expect(subsetEndpoints(generate(contextIn('subset', inputs('10.1.0.6'))))).toContain('10.1.0.6');
    const moved = subsetEndpoints(generate(contextIn('subset', inputs('10.1.0.7'))));

    expect(moved).toContain('10.1.0.7');
    expect(moved).not.toContain('10.1.0.6');
  });

  it.each(CHANGES)('after $change, gives what a generation from scratch gives', ({ change, after }) => {
    const index = CHANGES.findIndex((each) => each.change === change);
    // In meshes of their own, so that one is generated from scratch and the other carries from the last tick.
    const json = (mesh: string, generated: ReturnType<typeof generate>) => JSON.stringify(generated).replaceAll(mesh, '<mesh>');
    const fromScratch = json(`scratch-${index}`, generate(contextIn(`scratch-${index}`, after), after.features));
    const before = json(`carried-${index}`, generate(contextIn(`carried-${index}`, BEFORE), BEFORE.features));

    const carried = json(`carried-${index}`, generate(contextIn(`carried-${index}`, after), after.features));
    expect(JSON.parse(carried)).toEqual(JSON.parse(fromScratch));
    // The change shows: the carried generation did not just repeat the last tick.
    expect(carried).not.toEqual(before);
  });
});
