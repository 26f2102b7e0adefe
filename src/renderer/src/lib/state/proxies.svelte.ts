import { createSubscriber, SvelteMap } from 'svelte/reactivity';
import type { DataplaneOverview, FirstConfigBreakdown, TypeStatus } from '../../../../shared/api-types.js';
import type { CoreEvent } from '../../../../shared/events.js';
import { client } from '../api/index.js';

/** Label the lifecycle puts on a Dataplane its proxy registered through metadata. */
export const ORIGIN_LABEL = 'meshdesk.io/origin';

/** One Dataplane and its proxy, flattened for the Proxies table. */
export interface ProxyRow {
  /** Node id, `mesh.name`. */
  id: string;
  mesh: string;
  name: string;
  services: string[];
  address: string;
  /** `proxy`: registered by its proxy (metadata); `api`: created through the API or UI. */
  origin: 'proxy' | 'api';
  /** `never`: the Dataplane exists but no proxy has connected for it since meshdesk started. */
  state: 'online' | 'offline' | 'never';
  since?: number;
  connections: number;
  /** By short type (`cds`, `eds`, `lds`, `rds`). */
  types: Record<string, TypeStatus>;
  /** Lower-case text the search matches against. */
  haystack: string;
}

export function toProxyRow(overview: DataplaneOverview): ProxyRow {
  const { mesh, name, labels, dataplane, dataplaneInsight: insight } = overview;
  const services = [
    ...new Set((dataplane.networking.inbound ?? []).map((inbound) => inbound.tags['kuma.io/service']).filter((s) => s !== undefined)),
  ];
  const origin = labels[ORIGIN_LABEL] === 'proxy' ? 'proxy' : 'api';
  const state = insight === null ? 'never' : insight.online ? 'online' : 'offline';
  const address = dataplane.networking.address;
  return {
    id: `${mesh}.${name}`,
    mesh,
    name,
    services,
    address,
    origin,
    state,
    since: insight?.since,
    connections: insight?.connections ?? 0,
    types: Object.fromEntries((insight?.types ?? []).map((type) => [type.type, type])),
    haystack: [mesh, name, address, origin, state, ...services].join(' ').toLowerCase(),
  };
}

/** Events after which a proxy's row may look different; ticks alone change nothing it shows. */
const STATUS_EVENTS = new Set(['stream-opened', 'registered', 'response', 'ack', 'nack', 'response-dropped', 'stream-closed', 'deregistered']);

/** Live events come in bursts (a proxy's four responses and ACKs): refetch a mesh at most this often. */
const REFRESH_DELAY_MS = 150;

/**
 * Every Dataplane of every mesh with its proxy's status, kept live: a resource or proxy event
 * marks its mesh stale, and stale meshes are refetched together shortly after (one request per
 * mesh, whatever the burst). The API stays the one source of truth; nothing is patched locally.
 */
export class ProxiesState {
  #byMesh = $state.raw<ReadonlyMap<string, ProxyRow[]>>(new Map());
  #loaded = $state(false);
  #error = $state<string>();
  readonly #stale = new Set<string>();
  readonly #generation = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #allStale = false;

  readonly #subscribe = createSubscriber(() => {
    const stopEvents = client.subscribe((event) => this.#onEvent(event));
    const stopLive = client.onLive(() => void this.#loadAll());
    return () => {
      stopEvents();
      stopLive();
      clearTimeout(this.#timer);
      this.#timer = undefined;
    };
  });

  /** Every row, sorted by mesh then name. */
  get rows(): ProxyRow[] {
    this.#subscribe();
    return [...this.#byMesh.values()].flat();
  }

  get loaded(): boolean {
    this.#subscribe();
    return this.#loaded;
  }

  get error(): string | undefined {
    this.#subscribe();
    return this.#error;
  }

  #onEvent(event: CoreEvent): void {
    if (event.topic === 'resource.changed') {
      this.#markStale(event.key.type === 'Mesh' ? undefined : event.key.mesh);
    } else if (event.topic === 'proxy.event' && STATUS_EVENTS.has(event.event.kind)) {
      this.#markStale(meshOf(event.proxyId));
    }
  }

  /** No mesh: the list of meshes itself may have changed. */
  #markStale(mesh?: string): void {
    if (mesh === undefined) this.#allStale = true;
    else this.#stale.add(mesh);
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      if (this.#allStale) {
        this.#allStale = false;
        this.#stale.clear();
        void this.#loadAll();
        return;
      }
      const meshes = [...this.#stale];
      this.#stale.clear();
      for (const each of meshes) void this.#loadMesh(each);
    }, REFRESH_DELAY_MS);
  }

  async #loadAll(): Promise<void> {
    try {
      const meshes = (await client.meshes()).items.map((mesh) => mesh.name);
      const known = new Set(meshes);
      const kept = new Map([...this.#byMesh].filter(([mesh]) => known.has(mesh)));
      this.#byMesh = kept;
      await Promise.all(meshes.map((mesh) => this.#loadMesh(mesh)));
      this.#loaded = true;
    } catch (error) {
      this.#error = describe(error);
    }
  }

  async #loadMesh(mesh: string): Promise<void> {
    // Only the newest request for a mesh may write: answers can arrive out of order.
    const generation = (this.#generation.get(mesh) ?? 0) + 1;
    this.#generation.set(mesh, generation);
    try {
      const { items } = await client.dataplanesWithInsights(mesh);
      if (this.#generation.get(mesh) !== generation) return;
      const rows = items.map(toProxyRow).sort((a, b) => a.name.localeCompare(b.name));
      const next = new Map(this.#byMesh);
      next.set(mesh, rows);
      this.#byMesh = new Map([...next].sort(([a], [b]) => a.localeCompare(b)));
      this.#error = undefined;
    } catch (error) {
      if (this.#generation.get(mesh) !== generation) return;
      this.#error = describe(error);
    }
  }
}

/**
 * Time to first config per proxy, fetched only for rows someone looks at (the table is
 * virtualized, so that is a screenful, not every proxy) and refetched while incomplete.
 */
export class FirstConfigState {
  readonly #byProxy = new SvelteMap<string, { fingerprint: string; breakdown?: FirstConfigBreakdown }>();
  readonly #inFlight = new Set<string>();

  /** The breakdown as last fetched; asks for a fresh one when the row changed since and it was incomplete. */
  of(row: ProxyRow): FirstConfigBreakdown | undefined {
    const entry = this.#byProxy.get(row.id);
    const fingerprint = fingerprintOf(row);
    const current = entry?.fingerprint === fingerprint || entry?.breakdown?.total.complete === true;
    if (!current && row.state !== 'never' && !this.#inFlight.has(row.id)) {
      // Not while rendering: state written from a template expression is refused by Svelte.
      this.#inFlight.add(row.id);
      queueMicrotask(() => void this.#fetch(row, fingerprint));
    }
    return entry?.breakdown;
  }

  async #fetch(row: ProxyRow, fingerprint: string): Promise<void> {
    try {
      const breakdown = await client.firstConfig(row.mesh, row.name);
      this.#byProxy.set(row.id, { fingerprint, breakdown });
    } catch {
      // No first connection on the timeline yet (404): try again when the row changes.
      this.#byProxy.set(row.id, { fingerprint });
    } finally {
      this.#inFlight.delete(row.id);
    }
  }
}

function fingerprintOf(row: ProxyRow): string {
  return `${row.since}:${Object.values(row.types)
    .map((type) => type.counts.acks + type.counts.nacks)
    .join(',')}`;
}

function meshOf(proxyId: string): string {
  return proxyId.slice(0, proxyId.indexOf('.'));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
