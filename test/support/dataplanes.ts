import type { Core } from '../../src/main/core.js';
import { DATAPLANE_TOKEN_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import { putResource } from './put-resource.js';

// Kuma-shaped Dataplanes for end-to-end tests, applied through the real HTTP API.

/** `tags` are added to the inbound's (e.g. `version: v2`, for route subsets). */
export function backendDataplane(name: string, port: number, service = 'echo', mesh = 'default', tags: Record<string, string> = {}) {
  return {
    type: 'Dataplane',
    mesh,
    name,
    networking: { address: '127.0.0.1', inbound: [{ port, tags: { ...tags, 'kuma.io/service': service, 'kuma.io/protocol': 'grpc' } }] },
  };
}

/** An HTTP service's instance: one inbound of `service` on `port`, and an outbound to `calls` on port 10001 when given. */
export function httpDataplane(mesh: string, name: string, service: string, port: number, calls?: string) {
  return {
    type: 'Dataplane',
    mesh,
    name,
    networking: {
      address: '127.0.0.1',
      inbound: [{ port, tags: { 'kuma.io/service': service, 'kuma.io/protocol': 'http' } }],
      ...(calls && { outbound: [{ port: 10001, tags: { 'kuma.io/service': calls } }] }),
    },
  };
}

/** A client with one outbound per service, on ports from 10001. */
export function clientDataplane(name: string, services: string | readonly string[] = 'echo', mesh = 'default') {
  return {
    type: 'Dataplane',
    mesh,
    name,
    networking: {
      address: '127.0.0.1',
      outbound: [services].flat().map((service, index) => ({ port: 10001 + index, tags: { 'kuma.io/service': service } })),
    },
  };
}

/** An HTTP service `web` calling `backend`, and a `backend` instance: the mesh the policy write tests change. */
export const WEB_1 = {
  type: 'Dataplane',
  mesh: 'default',
  name: 'web-1',
  networking: {
    address: '127.0.0.1',
    inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }],
    outbound: [{ port: 10001, tags: { 'kuma.io/service': 'backend' } }],
  },
};
export const BACKEND_1 = {
  type: 'Dataplane',
  mesh: 'default',
  name: 'backend-1',
  networking: { address: '127.0.0.1', inbound: [{ port: 18081, servicePort: 8081, tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http' } }] },
};

/**
 * web-1 as kumactl users write it, YAML text to send as is or with fields appended: one inbound
 * (service `web`, port 18080) and, unlike WEB_1, no outbound.
 */
export const WEB_1_INBOUND_YAML = `type: Dataplane
mesh: default
name: web-1
networking:
  address: 127.0.0.1
  inbound:
    - port: 18080
      tags:
        kuma.io/service: web
`;

/** web-1 as YAML text with only an outbound (to `backend` on 10001): a client that serves nothing. */
export const WEB_1_OUTBOUND_YAML = `type: Dataplane
mesh: default
name: web-1
networking:
  address: 127.0.0.1
  outbound:
    - port: 10001
      tags:
        kuma.io/service: backend
`;

export function applyDataplane(core: Core, dataplane: { mesh: string; name: string }): Promise<void> {
  return putResource(core.api.url, `/meshes/${dataplane.mesh}/dataplanes/${dataplane.name}`, dataplane);
}

export async function deleteDataplane(core: Core, mesh: string, name: string): Promise<void> {
  const response = await fetch(`${core.api.url}/meshes/${mesh}/dataplanes/${name}`, { method: 'DELETE' });
  if (!response.ok) throw new Error(`DELETE ${name} answered ${response.status}: ${await response.text()}`);
}

/**
 * Node metadata with the Dataplane's token, as every bootstrap meshdesk gives carries it: what a
 * raw ADS client needs in a mesh with mTLS (or with `xds.dataplaneTokens: enabled`).
 */
export function tokenMetadata(core: Core, name: string, mesh = 'default'): Record<string, string> {
  const token = core.xds.dataplaneTokens.tokenFor({ mesh, name });
  if (token === undefined) throw new Error(`Dataplane "${name}" in mesh "${mesh}" has no token (revoked)`);
  return { [DATAPLANE_TOKEN_METADATA_KEY]: token };
}

/** The gRPC xDS bootstrap of a stored Dataplane, from `GET …/bootstrap?proxyType=grpc`: what a user gives a proxyless app. */
export async function grpcBootstrapOf(core: Core, name: string, mesh = 'default'): Promise<object> {
  const response = await fetch(`${core.api.url}/meshes/${mesh}/dataplanes/${name}/bootstrap?proxyType=grpc`);
  if (!response.ok) throw new Error(`GET the bootstrap of ${mesh}/${name} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as object;
}
