import { createSubscriber, SvelteMap } from 'svelte/reactivity';
import type { DataplaneOverview, FirstConfigBody, ProxyStatus, TypeStatus } from '../../../../shared/api-types.js';
import type { CoreEvent } from '../../../../shared/events.js';
import { client } from '../api/index.js';
import { compareCodeUnits } from '../compare.js';
import { errorMessage } from '../format/error-message.js';

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
  /** `proxy`: registered by its proxy (metadata); `api`: created through the API or UI; `none`: no Dataplane has its node id. */
  origin: 'proxy' | 'api' | 'none';
  /** For the filters. `never`: the Dataplane exists but no proxy has connected for it since meshdesk started. */
  state: 'online' | 'offline' | 'never';
  /** Its proxy's status (its state in one word, a refusal, a countdown, a departure); undefined when never seen. */
  status?: ProxyStatus;
  since?: number;
  connections: number;
  /** The xDS variant of its (last) stream; undefined for a proxy never seen. */
  protocol?: ProxyStatus['protocol'];
  /** By short type (`cds`, `eds`, `lds`, `rds`). */
  types: Record<string, TypeStatus>;
  /** Lower-case text the search matches against. */
  haystack: string;
}

export function toProxyRow(overview: DataplaneOverview): ProxyRow {
  const { mesh, name, labels, dataplane, dataplaneInsight: insight } = overview;
  const services = [
    ...new Set((dataplane.networking.inbound ?? []).map((inbound) => inbound.tags?.['kuma.io/service']).filter((s) => s !== undefined)),
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
    ...(insight && { status: insight }),
    since: insight?.since,
    connections: insight?.connections ?? 0,
    protocol: insight?.protocol,
    types: Object.fromEntries((insight?.types ?? []).map((type) => [type.type, type])),
    haystack: [mesh, name, address, origin, state, insight?.protocol ?? '', ...services].join(' ').toLowerCase(),
  };
}

/**
 * A proxy no Dataplane answers to (a node id naming none, a refused proxy, a departed one): listed
 * from its status alone, so that every stream that reached meshdesk shows.
 */
export function statusRow(status: ProxyStatus): ProxyRow {
  const dot = status.proxyId.indexOf('.');
  const mesh = dot === -1 ? '' : status.proxyId.slice(0, dot);
  const name = dot === -1 ? status.proxyId : status.proxyId.slice(dot + 1);
  const state = status.online ? 'online' : 'offline';
  return {
    id: status.proxyId,
    mesh,
    name,
    services: [],
    address: '',
    origin: 'none',
    state,
    status,
    since: status.since,
    connections: status.connections,
    protocol: status.protocol,
    types: Object.fromEntries(status.types.map((type) => [type.type, type])),
    haystack: [mesh, name, 'no dataplane', state, status.state, status.refusal?.codeName ?? '', status.protocol].join(' ').toLowerCase(),
  };
}

/** The mesh that exists from the start (SPEC §3): the first load asks for its proxies at once. */
const DEFAULT_MESH = 'default';

/** Events after which a proxy's row may look different; ticks alone change nothing it shows. */
const STATUS_EVENTS = new Set([
  'stream-opened',
  'registered',
  'post-create-wait-started',
  'post-create-wait',
  'response',
  'ack',
  'nack',
  'response-dropped',
  'stream-closed',
  'deregistration-scheduled',
  'deregistered',
]);

/** Live events come in bursts (a proxy's four responses and ACKs): refetch a mesh at most this often. */
const REFRESH_DELAY_MS = 150;

/**
 * Every Dataplane of every mesh with its proxy's status, kept live: a resource or proxy event
 * marks its mesh stale, and stale meshes are refetched together shortly after (one request per
 * mesh, whatever the burst). The API stays the one source of truth; nothing is patched locally.
 */
export class ProxiesState {
  #byMesh = $state.raw<ReadonlyMap<string, ProxyRow[]>>(new Map());
  /** Every proxy status (`GET /proxies`): those no Dataplane row shows are listed too. */
  #statuses = $state.raw<ProxyStatus[]>([]);
  #statusesRequested = 0;
  #statusesShown = 0;
  #loaded = $state(false);
  #error = $state<string>();
  readonly #stale = new Set<string>();
  /** Per mesh, the newest request made and the request whose answer is shown. */
  readonly #requested = new Map<string, number>();
  readonly #shown = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #allStale = false;
  #statusesStale = false;

  readonly #subscribe = createSubscriber(() => {
    const stopEvents = client.subscribe((event) => this.#onEvent(event));
    // At once, not once the stream is open: the list is what the view waits for.
    const firstLoad = this.#loadAll();
    // The stream carries only what happens once it is open: changes made between the first answer
    // and its opening, or while the core was unreachable, never arrive. So each opening reloads the
    // list, as a burst of events does, after the first answer (drawing it comes first).
    let listening = true;
    const stopStatus = client.onStatus((status) => {
      if (status !== 'live') return;
      void firstLoad.then(() => {
        if (listening) this.#markStale();
      });
    });
    return () => {
      listening = false;
      stopEvents();
      stopStatus();
      clearTimeout(this.#timer);
      this.#timer = undefined;
    };
  });

  readonly #rows = $derived.by(() => {
    const rows = [...this.#byMesh.values()].flat();
    const shown = new Set(rows.map((row) => row.id));
    const others = this.#statuses.filter((status) => !shown.has(status.proxyId)).map(statusRow);
    return [...rows, ...others];
  });

  /** Every row: Dataplanes sorted by mesh then name, then proxies without one by node id. */
  get rows(): ProxyRow[] {
    this.#subscribe();
    return this.#rows;
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
      // A node id may name a mesh that does not exist: then only the statuses can show it.
      const mesh = meshOf(event.proxyId);
      this.#markStale(this.#byMesh.has(mesh) ? mesh : null, true);
    }
  }

  /** No mesh: the list of meshes itself may have changed; null: no mesh. `statuses`: a proxy's status may have changed. */
  #markStale(mesh?: string | null, statuses = false): void {
    if (mesh === undefined) this.#allStale = true;
    else if (mesh !== null) this.#stale.add(mesh);
    this.#statusesStale ||= statuses;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      if (this.#statusesStale) {
        this.#statusesStale = false;
        void this.#loadStatuses();
      }
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
    // The meshes expected (those shown, or at first `default`, which exists from the start) are
    // asked for alongside the list of meshes rather than after it: one round trip, not two.
    const expected = this.#byMesh.size > 0 ? [...this.#byMesh.keys()] : [DEFAULT_MESH];
    const loads = [...expected.map((mesh) => this.#loadMesh(mesh)), this.#loadStatuses()];
    try {
      const meshes = (await client.meshes()).items.map((mesh) => mesh.name);
      const known = new Set(meshes);
      for (const mesh of expected) {
        // Gone: its answer, if still on its way, must not bring it back.
        if (!known.has(mesh)) this.#shown.set(mesh, this.#requested.get(mesh) ?? 0);
      }
      this.#byMesh = new Map([...this.#byMesh].filter(([mesh]) => known.has(mesh)));
      loads.push(...meshes.filter((mesh) => !expected.includes(mesh)).map((mesh) => this.#loadMesh(mesh)));
      await Promise.all(loads);
      this.#loaded = true;
    } catch (error) {
      this.#error = errorMessage(error);
    }
  }

  async #loadStatuses(): Promise<void> {
    const request = ++this.#statusesRequested;
    try {
      const { items } = await client.proxies();
      if (request <= this.#statusesShown) return; // an older answer, arriving late
      this.#statusesShown = request;
      this.#statuses = items;
    } catch (error) {
      if (request === this.#statusesRequested) this.#error = errorMessage(error);
    }
  }

  async #loadMesh(mesh: string): Promise<void> {
    const request = (this.#requested.get(mesh) ?? 0) + 1;
    this.#requested.set(mesh, request);
    try {
      const { items } = await client.dataplanesWithInsights(mesh);
      // Answers can arrive out of order: one older than the shown one is dropped, but any newer one
      // shows, even while a still newer request is on its way; otherwise a mesh whose events keep
      // coming faster than its answers would never update.
      if (request <= (this.#shown.get(mesh) ?? 0)) return;
      this.#shown.set(mesh, request);
      const rows = items.map(toProxyRow).sort((a, b) => compareCodeUnits(a.name, b.name));
      const next = new Map(this.#byMesh);
      next.set(mesh, rows);
      this.#byMesh = new Map([...next].sort(([a], [b]) => compareCodeUnits(a, b)));
      if (request === this.#requested.get(mesh)) this.#error = undefined;
    } catch (error) {
      if (request === this.#requested.get(mesh)) this.#error = errorMessage(error);
    }
  }
}

/**
 * Time to first config per proxy, fetched only for rows someone looks at (the table is
 * virtualized, so that is a screenful, not every proxy) and refetched while incomplete.
 */
export class FirstConfigState {
  readonly #byProxy = new SvelteMap<string, { fingerprint: string; breakdown?: FirstConfigBody }>();
  readonly #inFlight = new Set<string>();

  /** The breakdown as last fetched; asks for a fresh one when the row changed since and it was incomplete. */
  of(row: ProxyRow): FirstConfigBody | undefined {
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
  return `${row.since}:${row.status?.state}:${Object.values(row.types)
    .map((type) => type.counts.acks + type.counts.nacks)
    .join(',')}`;
}

function meshOf(proxyId: string): string {
  return proxyId.slice(0, proxyId.indexOf('.'));
}
