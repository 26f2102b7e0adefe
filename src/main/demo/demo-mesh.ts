// The demo mesh, as data: what `npm run demo` and the UI's "Start a demo mesh" run (DemoRunner).
import type { ResourceInput } from '../../shared/resources.js';
import { validateResource } from '../resources/validate.js';

/** The demo's own mesh: nothing of the user's mesh `default` is touched. */
export const DEMO_MESH = 'demo';
/** On every resource the demo writes, and on the Dataplanes its proxies register: how it knows its own. */
export const DEMO_LABEL = 'meshdesk.io/demo';

/**
 * The Envoy-like sidecars: each registers its Dataplane from node metadata (Kuma's universal flow),
 * so each goes through meshdesk's post-create wait. Inbound ports are never bound (nothing calls
 * them); outbounds name the services each one calls.
 */
export const DEMO_SIDECARS: readonly { name: string; service: string; port: number; calls: readonly string[] }[] = [
  { name: 'web-1', service: 'web', port: 21001, calls: ['orders', 'greeter'] },
  { name: 'web-2', service: 'web', port: 21002, calls: ['orders', 'greeter'] },
  { name: 'orders-1', service: 'orders', port: 21003, calls: ['inventory'] },
  { name: 'orders-2', service: 'orders', port: 21004, calls: ['inventory'] },
  { name: 'inventory-1', service: 'inventory', port: 21005, calls: [] },
  { name: 'inventory-2', service: 'inventory', port: 21006, calls: [] },
];

/** The proxyless gRPC pair: two versions of one real gRPC server, and a real grpc-js-xds client of it. */
export const GREETER_SERVICE = 'greeter';
export const GREETER_SERVERS: readonly { name: string; version: string }[] = [
  { name: 'greeter-1', version: 'v1' },
  { name: 'greeter-2', version: 'v2' },
];
export const GREETER_CLIENT = 'greeter-client';
/** How often the client calls: often enough that the split shows within seconds, cheap enough to leave running. */
export const GREETER_CALL_INTERVAL_MS = 250;

const labels = { [DEMO_LABEL]: 'true' };

/** The mesh, mTLS off (no `mtls`): traffic flows without any MeshTrafficPermission. */
export function demoMeshResource(): ResourceInput<'Mesh'> {
  return validateResource({ type: 'Mesh', name: DEMO_MESH, labels }, { type: 'Mesh' });
}

/** A sidecar's Dataplane as its node metadata carries it (Kuma's universal JSON). */
export function sidecarDataplane({ name, service, port, calls }: (typeof DEMO_SIDECARS)[number]) {
  return {
    type: 'Dataplane',
    mesh: DEMO_MESH,
    name,
    labels,
    networking: {
      address: '127.0.0.1',
      inbound: [{ port, servicePort: port + 1000, tags: { 'kuma.io/service': service, 'kuma.io/protocol': 'http' } }],
      outbound: calls.map((target, index) => ({ port: 10001 + index, tags: { 'kuma.io/service': target } })),
    },
  };
}

/** A proxyless gRPC server's Dataplane: its inbound is the server's own port (no sidecar), written through the API. */
export function greeterServerDataplane(server: (typeof GREETER_SERVERS)[number], port: number): ResourceInput<'Dataplane'> {
  return validateResource(
    {
      type: 'Dataplane',
      mesh: DEMO_MESH,
      name: server.name,
      labels,
      networking: {
        address: '127.0.0.1',
        inbound: [{ port, tags: { 'kuma.io/service': GREETER_SERVICE, 'kuma.io/protocol': 'grpc', version: server.version } }],
      },
    },
    { type: 'Dataplane' },
  );
}

/** The gRPC client's Dataplane, registered from its bootstrap's node metadata: a pure client of greeter. */
export function greeterClientDataplane() {
  return {
    type: 'Dataplane',
    mesh: DEMO_MESH,
    name: GREETER_CLIENT,
    labels,
    networking: { address: '127.0.0.1', outbound: [{ port: 10001, tags: { 'kuma.io/service': GREETER_SERVICE } }] },
  };
}

/** Share of greeter calls that go to v1; the rest go to v2. */
export const GREETER_V1_WEIGHT = 90;

/** The policies: every caller of greeter splits 90/10 between its versions, and gives up after 2 s. */
export function demoPolicies(): ResourceInput[] {
  const policy = (type: string, name: string, spec: object) => validateResource({ type, mesh: DEMO_MESH, name, labels, spec });
  return [
    policy('MeshHTTPRoute', 'greeter-split', {
      targetRef: { kind: 'Mesh' },
      to: [
        {
          targetRef: { kind: 'MeshService', name: GREETER_SERVICE },
          rules: [
            {
              matches: [{ path: { type: 'PathPrefix', value: '/' } }],
              default: {
                backendRefs: GREETER_SERVERS.map(({ version }) => ({
                  kind: 'MeshServiceSubset',
                  name: GREETER_SERVICE,
                  tags: { version },
                  weight: version === 'v1' ? GREETER_V1_WEIGHT : 100 - GREETER_V1_WEIGHT,
                })),
              },
            },
          ],
        },
      ],
    }),
    policy('MeshTimeout', 'greeter-timeout', {
      targetRef: { kind: 'Mesh' },
      to: [{ targetRef: { kind: 'MeshService', name: GREETER_SERVICE }, default: { http: { requestTimeout: '2s' } } }],
    }),
  ];
}
