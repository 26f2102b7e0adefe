import * as grpc from '@grpc/grpc-js';
import type { DemoStatus } from '../../shared/demo-types.js';
import { RESOURCE_TYPES, type Resource, type ResourceKey, type ResourceType } from '../../shared/resources.js';
import type { ResourceManager } from '../manager/interfaces.js';
import { validateResource } from '../resources/validate.js';
import { ResourceConflictError, ResourceNotFoundError } from '../store/errors.js';
import { ORIGIN_LABEL, PROXY_ORIGIN } from '../xds/callbacks/dataplane-lifecycle.js';
import type { StatusTracker } from '../xds/callbacks/status-tracker.js';
import { DATAPLANE_METADATA_KEY, generateGrpcBootstrap, unstoredDataplane } from '../xds/generate/bootstrap.js';
import { adsServiceDefinition } from '../xds/protocol/ads-service.js';
import {
  DEMO_LABEL,
  DEMO_MESH,
  DEMO_SIDECARS,
  GREETER_CALL_INTERVAL_MS,
  GREETER_CLIENT,
  GREETER_SERVERS,
  GREETER_SERVICE,
  demoMeshResource,
  demoPolicies,
  greeterClientDataplane,
  greeterServerDataplane,
  sidecarDataplane,
} from './demo-mesh.js';
import { startGreeterClient, startGreeterServer, type GreeterClient, type GreeterServer } from './greeter.js';
import { SimulatedProxy } from './simulated-proxy.js';

/** How long a stop waits for the demo's streams to close on meshdesk's side. */
const OFFLINE_WAIT_MS = 5000;

/** The demo cannot start: a mesh of its name is the user's. The API answers 409. */
export class DemoConflictError extends Error {
  override readonly name = 'DemoConflictError';
}

export interface DemoRunnerOptions {
  manager: ResourceManager;
  /** Where the demo's proxies dial meshdesk's ADS server. */
  ads: { host: string; port: number };
  /** Tells when the demo's streams are closed on meshdesk's side, so no registration is still under way. */
  statusTracker: Pick<StatusTracker, 'status' | 'onStateChange'>;
}

/** What one run of the demo started, to stop it again. */
interface Running {
  servers: GreeterServer[];
  adsClient?: grpc.Client;
  sidecars: SimulatedProxy[];
  greeter?: GreeterClient;
  /** The version the demo last saw of each resource it may delete, by `type/mesh/name`. */
  owned: Map<string, { key: ResourceKey; version: number }>;
}

/**
 * The demo mesh (demo-mesh.ts), started and stopped in the core's own process, for `npm run demo`
 * and the UI's "Start a demo mesh" alike: a mesh of its own, real gRPC servers registered through
 * the API, Envoy-like sidecars and a grpc-js-xds client registering from node metadata, and two
 * policies. Stopping closes everything it opened and deletes what it wrote, except what the user
 * changed since (kept, and said so); it never touches a resource it did not write.
 */
export class DemoRunner {
  readonly #options: DemoRunnerOptions;
  #status: Omit<DemoStatus, 'greeter'> = { state: 'stopped', mesh: DEMO_MESH, proxies: [] };
  #running: Running | undefined;
  /** Starts and stops run one after another. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: DemoRunnerOptions) {
    this.#options = options;
  }

  status(): DemoStatus {
    const greeter = this.#running?.greeter?.calls();
    return { ...structuredClone(this.#status), ...(greeter && { greeter }) };
  }

  /** Starts the demo (a no-op while it runs); a start that fails undoes itself and says why. */
  start(): Promise<DemoStatus> {
    return this.#enqueue(async () => {
      if (this.#running) return;
      const running: Running = { servers: [], sidecars: [], owned: new Map() };
      this.#running = running;
      this.#status = { state: 'starting', mesh: DEMO_MESH, startedAt: Date.now(), proxies: [] };
      try {
        await this.#start(running);
        this.#status.state = 'running';
      } catch (error) {
        await this.#stop(running);
        this.#running = undefined;
        this.#status = { state: 'stopped', mesh: DEMO_MESH, proxies: [], error: error instanceof Error ? error.message : String(error) };
        throw error;
      }
    });
  }

  /** Stops the demo and removes what it wrote (a no-op when it is not running). */
  stop(): Promise<DemoStatus> {
    return this.#enqueue(async () => {
      const running = this.#running;
      if (!running) return;
      this.#status.state = 'stopping';
      const kept = await this.#stop(running);
      this.#running = undefined;
      this.#status = { state: 'stopped', mesh: DEMO_MESH, proxies: [], stoppedAt: Date.now(), ...(kept.length > 0 && { kept }) };
    });
  }

  #enqueue(step: () => Promise<void>): Promise<DemoStatus> {
    const done = this.#queue.then(step).then(() => this.status());
    this.#queue = done.catch(() => undefined);
    return done;
  }

  async #start(running: Running): Promise<void> {
    const { manager, ads } = this.#options;
    const mesh = await find(manager, 'Mesh', '', DEMO_MESH);
    if (mesh && mesh.meta.labels[DEMO_LABEL] === undefined) {
      throw new DemoConflictError(
        `a mesh named "${DEMO_MESH}" exists and the demo did not create it (it has no ${DEMO_LABEL} label); the demo never changes what you made: rename or delete that mesh to run the demo`,
      );
    }
    // A labelled mesh is an earlier demo's, left by a meshdesk that was killed: the demo takes it up again.
    if (!mesh) await manager.create(demoMeshResource());
    for (const server of GREETER_SERVERS) {
      const started = await startGreeterServer(server.version);
      running.servers.push(started);
      await manager.upsert(greeterServerDataplane(server, started.port));
    }
    for (const policy of demoPolicies()) await manager.upsert(policy);
    // Everything in the mesh now is the demo's: its writes and the mesh's initial policies.
    for (const resource of await resourcesOfDemoMesh(manager)) this.#own(running, resource);

    const Client = grpc.makeGenericClientConstructor(adsServiceDefinition(), 'AggregatedDiscoveryService');
    running.adsClient = new Client(hostPort(ads), grpc.credentials.createInsecure());
    for (const sidecar of DEMO_SIDECARS) {
      const dataplane = sidecarDataplane(sidecar);
      const proxy = new SimulatedProxy({
        node: {
          id: `${DEMO_MESH}.${sidecar.name}`,
          cluster: sidecar.service,
          user_agent_name: 'envoy',
          metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(dataplane) },
        },
        edsClusters: sidecar.calls,
      });
      running.sidecars.push(proxy);
      proxy.start(running.adsClient);
      this.#status.proxies.push(proxy.id);
    }
    const bootstrap = generateGrpcBootstrap({
      nodeId: `${DEMO_MESH}.${GREETER_CLIENT}`,
      adsHost: ads.host,
      adsPort: ads.port,
      locality: { region: 'local', zone: 'laptop' },
      dataplane: unstoredDataplane(validateResource(greeterClientDataplane(), { type: 'Dataplane' })),
    });
    running.greeter = await startGreeterClient(GREETER_SERVICE, bootstrap, GREETER_CALL_INTERVAL_MS);
    this.#status.proxies.push(`${DEMO_MESH}.${GREETER_CLIENT}`);
  }

  /** Closes what `running` opened and deletes what the demo wrote; resolves with what it kept. */
  async #stop(running: Running): Promise<string[]> {
    const { manager } = this.#options;
    running.greeter?.close();
    for (const sidecar of running.sidecars) sidecar.close();
    running.adsClient?.close();
    await Promise.all(running.servers.map((server) => server.stop()));
    await this.#untilOffline(this.#status.proxies);

    // The Dataplanes its proxies registered are the demo's own, whatever became of them.
    for (const name of [...DEMO_SIDECARS.map((sidecar) => sidecar.name), GREETER_CLIENT]) {
      const dataplane = await find(manager, 'Dataplane', DEMO_MESH, name);
      if (dataplane?.meta.labels[ORIGIN_LABEL] === PROXY_ORIGIN && dataplane.meta.labels[DEMO_LABEL] !== undefined) {
        await deleteIfUnchanged(manager, { type: 'Dataplane', mesh: DEMO_MESH, name }, dataplane.meta.version);
      }
    }
    const kept: string[] = [];
    const owned = [...running.owned.values()];
    // Mesh-scoped resources first: a Mesh goes last, and only once nothing is left in it.
    for (const { key, version } of owned.filter(({ key }) => key.type !== 'Mesh')) {
      if (!(await deleteIfUnchanged(manager, key, version))) kept.push(describe(key));
    }
    const mesh = owned.find(({ key }) => key.type === 'Mesh');
    if (mesh) {
      const left = await resourcesOfDemoMesh(manager);
      const meshLeft = left.find((resource) => resource.type === 'Mesh');
      const othersLeft = left.filter((resource) => resource.type !== 'Mesh');
      if (meshLeft && (othersLeft.length > 0 || !(await deleteIfUnchanged(manager, mesh.key, mesh.version)))) kept.push(describe(mesh.key));
    }
    return kept;
  }

  /**
   * Resolves once none of these proxies is online (their streams' hooks, registrations included, are
   * done), or after OFFLINE_WAIT_MS: a stream that lingers must not hold the stop up for good.
   */
  #untilOffline(proxyIds: readonly string[]): Promise<void> {
    const { statusTracker } = this.#options;
    const online = () => proxyIds.some((id) => statusTracker.status(id)?.online);
    if (!online()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      };
      const timer = setTimeout(done, OFFLINE_WAIT_MS);
      const unsubscribe = statusTracker.onStateChange(() => {
        if (!online()) done();
      });
    });
  }

  #own(running: Running, resource: Resource): void {
    const key = { type: resource.type, mesh: resource.type === 'Mesh' ? '' : resource.meta.mesh, name: resource.meta.name };
    running.owned.set(describe(key), { key, version: resource.meta.version });
  }
}

/** The demo mesh and every resource in it (proxy-registered Dataplanes aside: they come and go with their proxies). */
async function resourcesOfDemoMesh(manager: ResourceManager): Promise<Resource[]> {
  const mesh = await find(manager, 'Mesh', '', DEMO_MESH);
  if (!mesh) return [];
  const scoped = await Promise.all(RESOURCE_TYPES.filter((type) => type !== 'Mesh').map((type) => manager.list(type, { mesh: DEMO_MESH })));
  return [mesh, ...scoped.flat().filter((resource) => resource.meta.labels[ORIGIN_LABEL] !== PROXY_ORIGIN)];
}

async function find<T extends ResourceType>(manager: ResourceManager, type: T, mesh: string, name: string): Promise<Resource<T> | undefined> {
  try {
    return await manager.get(type, { mesh, name });
  } catch (error) {
    if (error instanceof ResourceNotFoundError) return undefined;
    throw error;
  }
}

/** Deletes the resource only at the version the demo saw; false when it changed since (or is gone, which is fine). */
async function deleteIfUnchanged(manager: ResourceManager, key: ResourceKey, version: number): Promise<boolean> {
  const current = await find(manager, key.type, key.mesh, key.name);
  if (!current) return true;
  if (current.meta.version !== version) return false;
  try {
    await manager.delete(key, { version });
    return true;
  } catch (error) {
    if (error instanceof ResourceNotFoundError) return true;
    if (error instanceof ResourceConflictError) return false; // changed in between: the user's now
    throw error;
  }
}

function describe(key: ResourceKey): string {
  return key.type === 'Mesh' ? `Mesh ${key.name}` : `${key.type} ${key.mesh}/${key.name}`;
}

function hostPort({ host, port }: { host: string; port: number }): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
