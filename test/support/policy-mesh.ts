// One mesh for the store-driven policy tests (test/e2e/policies): a real core, real gRPC servers
// registered as Dataplanes through the API, and both real xDS clients — gRPC's Node client
// (@grpc/grpc-js-xds, in process) and Debian's python3-grpcio (C-core, a subprocess) — each its own
// proxy, calling the servers through meshdesk's ADS server. Policies go in as a user writes them:
// Kuma YAML PUT at Kuma's paths.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { XdsChannelCredentials } from '@grpc/grpc-js-xds';
import { expect } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { grpcCertificateFiles } from '../../src/main/mtls/grpc-certificate-files.js';
import { generateGrpcBootstrap } from '../../src/main/xds/generate/bootstrap.js';
import { ENDPOINT_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { now } from '../../src/main/xds/status/proxy-timeline.js';
import { startTestCore } from './core.js';
import { applyDataplane, backendDataplane, clientDataplane } from './dataplanes.js';
import { echoClient, startEchoServer, type EchoClient, type EchoHandler } from './echo-server.js';
import { eventually } from './eventually.js';
import { registerGrpcXds } from './grpc-xds.js';
import { startPythonEchoClient, type TimedCallResult } from './python-echo-client.js';
import { startPythonXdsEchoServer } from './python-xds-echo-server.js';
import { putResource } from './put-resource.js';
import { tempDir } from './temp-dir.js';
import { onScopeFinished } from './test-scope.js';
import { freePort, startXdsEchoServer } from './xds-echo-server.js';

export type { TimedCallResult } from './python-echo-client.js';

export interface BackendSpec {
  /** The Dataplane's name, and what the server answers before `:`. */
  name: string;
  service: string;
  /** Extra inbound tags, e.g. `version: v2`. */
  tags?: Record<string, string>;
  handler?: EchoHandler;
  /**
   * An xDS-enabled server of this implementation (gRFC A36), itself a proxy of the mesh that takes
   * its listener (mTLS, permissions) from meshdesk, proxy id `default.<name>`; without it, a plain
   * gRPC server. A grpc-js-xds server under mTLS enforces permissions only when the test file
   * imports grpc-js-xds-rbac.js first.
   */
  xdsServer?: ClientName;
}

export type ClientName = 'grpc-js-xds' | 'python3-grpcio';

/**
 * A client whose proxies carry the `kuma.io/workload` label `workload`, their identity with mesh
 * mTLS: `spiffe://default/<workload>` (Dataplanes `<workload>` for python3-grpcio,
 * `<workload>-<service>` for grpc-js-xds). A bare ClientName is `client-py` / `client-js-<service>`.
 */
export interface ClientSpec {
  name: ClientName;
  workload: string;
}

export interface PolicyMeshOptions {
  /** Mesh mTLS (builtin CA, STRICT) from the start: clients and xDS servers take their TLS from meshdesk's xDS. */
  mtls?: boolean;
}

/** Whose new configuration a policy write waits for. */
export interface PolicyWrite {
  /** Clients the policy sends nothing new (the test waits on what it expects of them instead); default: none. */
  unchanged?: readonly ClientName[];
  /** The xDS-enabled servers too (a server-side policy: MeshTrafficPermission). */
  servers?: boolean;
}

export interface MeshClient {
  readonly name: ClientName;
  /** Its `kuma.io/workload`, when it was given one. */
  readonly workload?: string;
  /**
   * Its proxy ids in the core (`default.<dataplane>`). grpc-js-xds makes one xDS client per
   * bootstrap given as a channel option, so it is one proxy per service (two ADS streams under one
   * node id would replace each other); python3-grpcio is one proxy for all.
   */
  readonly proxyIds: readonly string[];
  /** `count` concurrent calls to `xds:///<service>`; each result with its latency. */
  calls(service: string, count: number, options?: { headers?: Record<string, string>; deadlineMs?: number }): Promise<TimedCallResult[]>;
}

export interface PolicyMesh {
  core: Core;
  clients: readonly MeshClient[];
  /** The proxy ids of the xDS-enabled servers. */
  serverProxyIds: readonly string[];
  /**
   * PUTs a policy (Kuma YAML) at `/meshes/default/<path>/<name>` and returns once the proxies it
   * changes ACKed the configuration generated after the write (see PolicyWrite).
   */
  putPolicy(path: string, name: string, yaml: string, awaiting?: PolicyWrite): Promise<void>;
  /** DELETEs a policy and returns once the proxies it changes ACKed the configuration generated after it. */
  deletePolicy(path: string, name: string, awaiting?: PolicyWrite): Promise<void>;
}

/**
 * The core (short cache and refresh interval, as every e2e test), the servers, and the clients of
 * `clients` (both by default), each a Dataplane with an outbound to every service of `backends`.
 * Everything closes when the test ends (or the file's tests, when started in a `beforeAll`).
 */
export async function startPolicyMesh(
  backends: readonly BackendSpec[],
  clients: readonly (ClientName | ClientSpec)[] = ['grpc-js-xds', 'python3-grpcio'],
  { mtls = false }: PolicyMeshOptions = {},
): Promise<PolicyMesh> {
  const core = await startTestCore();
  core.settings.update({ 'store.cache.expirationTime': '100ms', 'xds.dataplaneConfigurationRefreshInterval': '100ms' });
  if (mtls) await putStrictMtls(core);
  const bootstrapOf = (dataplane: string) =>
    generateGrpcBootstrap({
      nodeId: `default.${dataplane}`,
      adsHost: '127.0.0.1',
      adsPort: core.xds.port,
      locality: { region: 'local', zone: 'default' },
      ...(mtls && { certificates: { mesh: 'default', files: grpcCertificateFiles(core.dataDir, 'default', dataplane) } }),
      // Its Dataplane's token, as every bootstrap meshdesk gives carries it (required with mTLS).
      token: core.xds.dataplaneTokens.tokenFor({ mesh: 'default', name: dataplane }),
    });
  for (const backend of backends) {
    if (backend.xdsServer === undefined) {
      const server = await startEchoServer(backend.name, backend.handler);
      onScopeFinished(() => server.stop());
      await applyDataplane(core, backendDataplane(backend.name, server.port, backend.service, 'default', backend.tags));
      continue;
    }
    // An xDS server binds the port its listener names, so the Dataplane comes first.
    const port = await freePort();
    await applyDataplane(core, backendDataplane(backend.name, port, backend.service, 'default', backend.tags));
    const start = backend.xdsServer === 'grpc-js-xds' ? startXdsEchoServer : startPythonXdsEchoServer;
    const server = await start(backend.name, port, bootstrapOf(backend.name));
    onScopeFinished(() => server.stop());
  }
  const services = [...new Set(backends.map(({ service }) => service))];
  const clientOf = async (dataplane: string, outbounds: readonly string[], workload?: string) => {
    const labels = workload === undefined ? {} : { labels: { 'kuma.io/workload': workload } };
    await applyDataplane(core, { ...clientDataplane(dataplane, outbounds), ...labels });
    return bootstrapOf(dataplane);
  };
  const started: MeshClient[] = [];
  for (const spec of clients) {
    const { name, workload } = typeof spec === 'string' ? { name: spec, workload: undefined } : spec;
    if (name === 'python3-grpcio') {
      const dataplane = workload ?? 'client-py';
      started.push(await pythonClient(`default.${dataplane}`, await clientOf(dataplane, services, workload), services, { mtls, workload }));
    } else {
      const bootstraps = new Map<string, { proxyId: string; bootstrap: unknown }>();
      for (const service of services) {
        const dataplane = `${workload ?? 'client-js'}-${service}`;
        bootstraps.set(service, { proxyId: `default.${dataplane}`, bootstrap: await clientOf(dataplane, [service], workload) });
      }
      started.push(await grpcJsClient(bootstraps, { mtls, workload }));
    }
  }
  // Policies change configuration the clients already have: each has its endpoints before the test acts.
  await Promise.all(started.flatMap(({ proxyIds }) => proxyIds).map((proxyId) => eventually(() => expect(core.xds.timeline.events(proxyId).some((event) => event.kind === 'ack' && event.typeUrl === ENDPOINT_TYPE_URL)).toBe(true))));
  const serverProxyIds = backends.flatMap(({ name, xdsServer }) => (xdsServer === undefined ? [] : [`default.${name}`]));
  const write = async (method: 'PUT' | 'DELETE', path: string, name: string, { unchanged = [], servers = false }: PolicyWrite = {}, body?: string) => {
    const since = now();
    const response = await fetch(`${core.api.url}/meshes/default/${path}/${name}`, { method, body });
    if (!response.ok) throw new Error(`${method} ${path}/${name} answered ${response.status}: ${await response.text()}`);
    const changed = started.filter((client) => !unchanged.includes(client.name)).flatMap(({ proxyIds }) => proxyIds);
    await Promise.all([...changed, ...(servers ? serverProxyIds : [])].map((proxyId) => configuredSince(core, proxyId, since)));
  };
  return {
    core,
    clients: started,
    serverProxyIds,
    putPolicy: (path, name, yaml, awaiting) => write('PUT', path, name, awaiting, yaml),
    deletePolicy: (path, name, awaiting) => write('DELETE', path, name, awaiting),
  };
}

/** Turns on the default mesh's mTLS: builtin CA, STRICT. */
async function putStrictMtls(core: Core): Promise<void> {
  const mtls = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin', mode: 'STRICT' }] };
  await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', mtls });
}

/**
 * Waits until the proxy got a response after `since` and ACKed the latest one of each type (a
 * response superseded before its ACK is never ACKed), and ACKed the versions of the last
 * configuration generated since for every type it subscribes to: a Listener naming a new
 * RouteConfiguration is ACKed before the client asks for that route. A NACK fails.
 */
async function configuredSince(core: Core, proxyId: string, since: number): Promise<void> {
  await eventually(() => {
    const all = core.xds.timeline.events(proxyId);
    const events = all.filter((event) => event.at >= since);
    const nack = events.find((event) => event.kind === 'nack');
    if (nack) throw new Error(`${proxyId} NACKed: ${JSON.stringify(nack)}`);
    const latest = new Map<string, string>();
    for (const event of events) if (event.kind === 'response') latest.set(event.typeUrl, event.nonce);
    const acked = new Set(events.flatMap((event) => (event.kind === 'ack' ? [event.nonce] : [])));
    if (latest.size === 0 || ![...latest.values()].every((nonce) => acked.has(nonce))) throw new Error(`${proxyId} has not ACKed new configuration yet: ${latest.size === 0 ? 'nothing sent since the write' : `sent ${JSON.stringify([...latest])}`}`);
    const generated = events.findLast((event) => event.kind === 'tick' && event.versions !== undefined);
    const ackedVersions = new Set(all.flatMap((event) => (event.kind === 'ack' ? [`${event.typeUrl} ${event.version}`] : [])));
    const subscribed = new Set(all.flatMap((event) => (event.kind === 'ack' ? [event.typeUrl] : [])));
    const missing = Object.entries(generated?.kind === 'tick' ? (generated.versions ?? {}) : {}).filter(([typeUrl, version]) => subscribed.has(typeUrl) && !ackedVersions.has(`${typeUrl} ${version}`));
    if (missing.length > 0) throw new Error(`${proxyId} has not ACKed the configuration generated since the write: ${JSON.stringify(missing)}`);
  });
}

/** The ids of the ADS streams the proxy opened, to show a change reached it without a reconnect. */
export function adsStreams(core: Core, proxyId: string): number[] {
  return core.xds.timeline.events(proxyId).flatMap((event) => (event.kind === 'stream-opened' ? [event.streamId] : []));
}

/** A channel per service, each with its own bootstrap (its own proxy); with `mtls`, TLS from xDS. */
async function grpcJsClient(bootstraps: ReadonlyMap<string, { proxyId: string; bootstrap: unknown }>, { mtls, workload }: { mtls: boolean; workload?: string }): Promise<MeshClient> {
  await registerGrpcXds();
  const channels = new Map<string, EchoClient>();
  for (const [service, { bootstrap }] of bootstraps) {
    const options = { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap) };
    const client = echoClient(`xds:///${service}`, options, mtls ? new XdsChannelCredentials(credentials.createInsecure()) : undefined);
    onScopeFinished(() => client.close());
    client.connect();
    channels.set(service, client);
  }
  const channel = (service: string) => channels.get(service)!;
  const call = async (service: string, deadlineMs: number, headers: Record<string, string>): Promise<TimedCallResult> => {
    const started = performance.now();
    try {
      const reply = await channel(service).echo('hi', deadlineMs, headers);
      return { ok: true, reply, ms: performance.now() - started };
    } catch (error) {
      const { code, details } = error as ServiceError;
      return { ok: false, code: status[code], details, ms: performance.now() - started };
    }
  };
  return {
    name: 'grpc-js-xds',
    workload,
    proxyIds: [...bootstraps.values()].map(({ proxyId }) => proxyId),
    calls: (service, count, { headers = {}, deadlineMs = 5000 } = {}) => Promise.all(Array.from({ length: count }, () => call(service, deadlineMs, headers))),
  };
}

async function pythonClient(proxyId: string, bootstrap: unknown, services: readonly string[], { mtls, workload }: { mtls: boolean; workload?: string }): Promise<MeshClient> {
  const bootstrapFile = join(tempDir(), 'bootstrap.json');
  writeFileSync(bootstrapFile, JSON.stringify(bootstrap));
  const client = startPythonEchoClient(`xds:///${services[0]}`, bootstrapFile, services.slice(1).map((service) => `xds:///${service}`), { xdsCredentials: mtls });
  onScopeFinished(() => client.stop());
  await client.ready();
  return {
    name: 'python3-grpcio',
    workload,
    proxyIds: [proxyId],
    calls: (service, count, { headers, deadlineMs = 5000 } = {}) =>
      client.batch({ count, target: `xds:///${service}`, metadata: headers, timeout: deadlineMs / 1000 }),
  };
}

/**
 * How many calls each server answered, by the name before `:` in its reply (`whole`: by the whole
 * reply, which an xDS server ends with the caller's identity), and each failure code.
 */
export function tally(results: readonly TimedCallResult[], { whole = false } = {}): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of results) {
    const key = result.ok ? (whole ? result.reply : result.reply.slice(0, result.reply.indexOf(':'))) : result.code;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/**
 * The largest distance from the mean `n·p` a binomial count stays within, stated as 5 standard
 * deviations (√(n·p·(1−p))): a correct client falls outside it about once in 1.7 million runs.
 */
export function binomialTolerance(n: number, p: number): number {
  return Math.ceil(5 * Math.sqrt(n * p * (1 - p)));
}
