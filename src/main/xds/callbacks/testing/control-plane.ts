import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ResourceInput } from '../../../../shared/resources.js';
import { CachedManager } from '../../../cache/cached-manager.js';
import { Settings } from '../../../config/settings.js';
import { EventBus } from '../../../events/event-bus.js';
import { ResourceManager } from '../../../manager/resource-manager.js';
import { createMetrics } from '../../../metrics/metrics.js';
import { openDatabase, type Db } from '../../../store/database.js';
import { ResourceStore } from '../../../store/resource-store.js';
import { DATAPLANE_METADATA_KEY } from '../../generate/bootstrap.js';
import type { Node } from '../../protocol/ads-service.js';
import { AdsServer } from '../../server/ads-server.js';
import type { Callbacks } from '../../server/callbacks.js';
import { SnapshotCache } from '../../server/snapshot-cache.js';
import type { StreamInfo } from '../../server/stream.js';
import { RawAdsClient, withProbe } from '../../server/testing/raw-ads-client.js';
import { RawDeltaClient } from '../../server/testing/raw-delta-client.js';
import { RecordingCallbacks } from '../../server/testing/recording-callbacks.js';
import { ProxyTimeline, type ProxyEvent, type ProxyEventKind } from '../../status/proxy-timeline.js';
import { DataplaneLifecycle, type DataplaneLifecycleOptions } from '../dataplane-lifecycle.js';
import { settingsTable } from '../../../store/settings-table.js';

/**
 * A real control plane core for the callbacks' tests: SQLite in a temp dir, the uncached and the
 * cached manager, live settings, a timeline, and an ADS server on an ephemeral loopback port
 * with the callbacks under test. Proxies are raw ADS clients.
 */
export class TestControlPlane {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'meshdesk-'));
  readonly db: Db = openDatabase(path.join(this.dir, 'meshdesk.db'));
  readonly events = new EventBus();
  readonly settings = new Settings({ table: settingsTable(this.db), events: this.events });
  readonly manager = new ResourceManager({ store: new ResourceStore(this.db), events: this.events });
  readonly cachedManager = new CachedManager({
    delegate: this.manager,
    ttl: () => this.settings.get('store.cache.expirationTime'),
    metrics: createMetrics(),
  });
  readonly timeline = new ProxyTimeline(this.events);
  readonly snapshots = new SnapshotCache();
  /** Meshes whose MeshContext the lifecycle asked to drop (the MeshContext cache is not ours to build). */
  readonly invalidatedMeshContexts: string[] = [];
  /** First in every chain, so that its close hook runs after all the others. */
  readonly #streams = new RecordingCallbacks();
  readonly #servers: AdsServer[] = [];
  readonly #clients: Array<RawAdsClient | RawDeltaClient> = [];
  readonly #lifecycles: DataplaneLifecycle[] = [];

  /** The Mesh `default` exists from the start, as in the product. */
  static async start(): Promise<TestControlPlane> {
    const controlPlane = new TestControlPlane();
    await controlPlane.manager.ensureDefaultMesh();
    return controlPlane;
  }

  lifecycle(options: Partial<DataplaneLifecycleOptions> = {}): DataplaneLifecycle {
    const lifecycle = new DataplaneLifecycle({
      manager: this.manager,
      cachedManager: this.cachedManager,
      invalidateMeshContext: (mesh) => this.invalidatedMeshContexts.push(mesh),
      settings: this.settings,
      timeline: this.timeline,
      ...options,
    });
    this.#lifecycles.push(lifecycle);
    return lifecycle;
  }

  /** Starts an ADS server with these callbacks and returns its port. */
  async serve(callbacks: readonly Callbacks[]): Promise<number> {
    const server = new AdsServer({ snapshots: this.snapshots, callbacks: [this.#streams, ...callbacks] });
    this.#servers.push(server);
    return server.start({ port: 0 });
  }

  /**
   * A proxy opening a stream (it sends nothing yet). Its node gets a snapshot holding only the
   * probe type, so that `client.barrier()` answers once the chain has accepted the stream.
   */
  proxy(port: number, node: Node): RawAdsClient {
    this.snapshots.setSnapshot(node.id, withProbe(new Map()));
    const client = new RawAdsClient(port, node);
    this.#clients.push(client);
    return client;
  }

  /** The same, speaking delta xDS. */
  deltaProxy(port: number, node: Node): RawDeltaClient {
    this.snapshots.setSnapshot(node.id, withProbe(new Map()));
    const client = new RawDeltaClient(port, node);
    this.#clients.push(client);
    return client;
  }

  /** The first event of this kind recorded for the proxy (the `nth`, counting from 1), now or when it comes. */
  event<K extends ProxyEventKind>(proxyId: string, kind: K, nth = 1): Promise<Extract<ProxyEvent, { kind: K }>> {
    const find = () => this.timeline.events(proxyId).filter((event) => event.kind === kind)[nth - 1];
    return new Promise((resolve) => {
      const found = find();
      if (found) return resolve(found as Extract<ProxyEvent, { kind: K }>);
      const unsubscribe = this.events.subscribe((event) => {
        const match = event.topic === 'proxy.event' && event.proxyId === proxyId ? find() : undefined;
        if (!match) return;
        unsubscribe();
        resolve(match as Extract<ProxyEvent, { kind: K }>);
      });
    });
  }

  /** Resolves once a stream of this node has closed and every close hook of the chain has run. */
  async closed(nodeId: string): Promise<void> {
    await this.#streams.waitFor('closed', (event) => event.node?.id === nodeId);
  }

  /** The live stream of this node, as the server sees it (what it sent, what was acked). */
  stream(nodeId: string): StreamInfo | undefined {
    return this.#servers.flatMap((server) => server.streams()).find((stream) => stream.nodeId === nodeId);
  }

  kinds(proxyId: string): ProxyEventKind[] {
    return this.timeline.events(proxyId).map((event) => event.kind);
  }

  async close(): Promise<void> {
    for (const client of this.#clients) client.close();
    await Promise.all(this.#servers.map((server) => server.stop()));
    await Promise.all(this.#lifecycles.map((lifecycle) => lifecycle.close()));
    this.cachedManager.close();
    this.db.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A valid Dataplane input, one inbound of service `backend` unless told otherwise. */
export function dataplaneInput(mesh: string, name: string, service = 'backend', port = 18080): ResourceInput<'Dataplane'> {
  return {
    type: 'Dataplane',
    mesh,
    name,
    labels: {},
    spec: { networking: { address: '127.0.0.1', inbound: [{ port, tags: { 'kuma.io/service': service } }] } },
  };
}

/** The node of a proxy in the universal flow: its Dataplane as JSON in `dataplane.resource`. */
export function nodeWithDataplane(nodeId: string, dataplane: Record<string, unknown>): Node {
  return { id: nodeId, metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(dataplane) } };
}

/** Inbound ports handed out by name: meshdesk refuses two inbounds of a mesh on one address and port. */
const inboundPorts = new Map<string, number>();

/** The same port for the same Dataplane every time, and another one for every other Dataplane. */
export function inboundPortOf(mesh: string, name: string): number {
  const key = `${mesh}/${name}`;
  let port = inboundPorts.get(key);
  if (port === undefined) inboundPorts.set(key, (port = 20_000 + inboundPorts.size));
  return port;
}

/** The Dataplane in the API/YAML shape, as a bootstrap carries it. */
export function universalDataplane(mesh: string, name: string, service = 'backend', port = 18080): Record<string, unknown> {
  const { spec, ...meta } = dataplaneInput(mesh, name, service, port);
  return { ...meta, ...spec };
}
