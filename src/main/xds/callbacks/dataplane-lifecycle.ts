import { status } from '@grpc/grpc-js';
import type { DataplaneResource, ResourceInput, ResourceKey } from '../../../shared/resources.js';
import type { CachedManager } from '../../cache/cached-manager.js';
import type { Settings } from '../../config/settings.js';
import type { ResourceManager } from '../../manager/interfaces.js';
import { ResourceAlreadyExistsError, ResourceConflictError, ResourceNotFoundError, ResourcePreconditionError } from '../../store/errors.js';
import { firstDifference } from '../../resources/first-difference.js';
import { ValidationError } from '../../resources/validation-error.js';
import { StreamError } from '../server/callbacks.js';
import type { Logger } from '../server/stream.js';
import { now, type ProxyTimeline } from '../status/proxy-timeline.js';
import { DATAPLANE_METADATA_KEY } from '../generate/bootstrap.js';
import { dataplaneFromMetadata } from './metadata-dataplane.js';
import type { ConnectedProxy, ProxyCallbacks } from './proxy-callbacks.js';
import { sleep as realSleep, type Sleep } from './sleep.js';

/** Label recording who registered a Dataplane; absent on Dataplanes created via the API or UI. */
export const ORIGIN_LABEL = 'meshdesk.io/origin';
/** The Dataplane was registered by its proxy (metadata): it goes when the proxy goes. */
export const PROXY_ORIGIN = 'proxy';

/** Registration attempts when other writers keep coming between its read and its write. */
const REGISTER_ATTEMPTS = 5;

/** Kuma's message, so that a Kuma user recognises the refusal. */
export const OVERRIDE_DENIED = "you are trying to override existing proxy to which you don't have an access";

export interface DataplaneLifecycleOptions {
  /** The uncached manager: registration must reach the store, not a cache. */
  manager: ResourceManager;
  cachedManager: CachedManager;
  invalidateMeshContext: (mesh: string) => void;
  settings: Settings;
  timeline: ProxyTimeline;
  /** The post-create wait's sleep; tests inject their own. */
  sleep?: Sleep;
  /** Where failed deregistrations go (no stream is left to close). Defaults to console. */
  logger?: Logger;
}

/** A Dataplane whose proxy disconnected, deleted at `dueAt` unless the proxy comes back first. */
export interface PendingDeregistration {
  proxyId: string;
  key: ResourceKey;
  /** On the timeline's clock. */
  dueAt: number;
}

interface Connection {
  proxy: ConnectedProxy;
  /** It registered its Dataplane from metadata: no other live stream may override it. */
  fromMetadata: boolean;
  /** Its Dataplane was registered by a proxy, not created via the API: delete it after the proxy leaves. */
  deregisterOnClose: boolean;
}

/**
 * Registers and deregisters the Dataplanes of connecting proxies (Kuma's DataplaneLifecycle). It runs
 * before the sync tracker, whose first generation needs the Dataplane to exist, and it is where the
 * post-create wait happens: `onProxyConnected` returns only once the registration is visible
 * through the caches, or the strategy says not to wait.
 *
 * Owns the proxy's `stream-opened`, `registered`, `post-create-wait-started`, `post-create-wait`,
 * `deregistration-scheduled` and `deregistered` timeline events (the status tracker records
 * `stream-closed`, with how it ended, for every stream).
 */
export class DataplaneLifecycle implements ProxyCallbacks {
  readonly #options: DataplaneLifecycleOptions;
  readonly #sleep: Sleep;
  readonly #logger: Logger;
  /** Live connections that got past registration, by proxy id, then stream id (a proxy may briefly have two). */
  readonly #connections = new Map<string, Map<number, Connection>>();
  readonly #pending = new Map<string, PendingDeregistration & { timer: NodeJS.Timeout }>();
  /** Cuts post-create sleeps short on close, so that shutdown never waits for a long cache TTL. */
  readonly #shutdown = new AbortController();
  /**
   * Registration writes still waiting for the storage worker: close waits for them, so that a
   * Dataplane a proxy registered as meshdesk stopped is deleted with the others, not left behind.
   */
  readonly #registrations = new Set<Promise<unknown>>();
  /** Deregistrations a timer started: shutdown waits for them before the store closes under them. */
  readonly #deregistrations = new Set<Promise<void>>();

  constructor(options: DataplaneLifecycleOptions) {
    this.#options = options;
    this.#sleep = options.sleep ?? realSleep;
    this.#logger = options.logger ?? console;
  }

  async onProxyConnected(proxy: ConnectedProxy): Promise<void> {
    if (this.#shutdown.signal.aborted) {
      throw new StreamError(status.UNAVAILABLE, `proxy "${proxy.proxyId}" cannot connect: the control plane is shutting down`);
    }
    this.#options.timeline.record(proxy.proxyId, {
      kind: 'stream-opened',
      at: proxy.streamOpenedAt,
      streamId: proxy.streamId,
      cacheExpirationMs: this.#options.settings.get('store.cache.expirationTime'),
    });
    try {
      const dataplane = dataplaneFromMetadata(proxy);
      if (!dataplane) {
        this.#useRegistered(proxy, await this.#find(proxy.dataplaneKey));
      } else {
        const registration = this.#registerFromMetadata(proxy, dataplane);
        this.#registrations.add(registration);
        const apiOwned = await registration.finally(() => this.#registrations.delete(registration));
        if (apiOwned) {
          requireApiDataplaneAsItIs(proxy, apiOwned, dataplane);
          this.#useRegistered(proxy, apiOwned);
        } else {
          await this.#postCreateWait(proxy);
        }
      }
    } catch (error) {
      // The adapter tells only successful connects about disconnects: clean up our half here.
      this.#release(proxy);
      throw error;
    }
  }

  onProxyDisconnected(proxy: ConnectedProxy): void {
    this.#release(proxy);
  }

  /** Dataplanes waiting for their deregistration delay, for the UI and tests. */
  pendingDeregistrations(): PendingDeregistration[] {
    return [...this.#pending.values()].map(({ proxyId, key, dueAt }) => ({ proxyId, key, dueAt }));
  }

  /**
   * Shutdown: cuts post-create waits short, cancels every deregistration timer and deletes at once
   * every Dataplane it would have deleted after its delay, connected or not. The proxies lose their
   * control plane anyway and register again when they reconnect (their metadata carries the
   * Dataplane), whereas a Dataplane left behind would keep being served as endpoints even if its
   * proxy never comes back. Only a crash leaves them; a returning proxy then takes its own over.
   * Connects after close are refused with UNAVAILABLE.
   */
  async close(): Promise<void> {
    if (this.#shutdown.signal.aborted) return;
    this.#shutdown.abort();
    await Promise.allSettled([...this.#registrations, ...this.#deregistrations]);
    const leaving = new Map<string, ResourceKey>();
    for (const { proxyId, key, timer } of this.#pending.values()) {
      clearTimeout(timer);
      leaving.set(proxyId, key);
    }
    this.#pending.clear();
    for (const streams of this.#connections.values()) {
      for (const { proxy, deregisterOnClose } of streams.values()) {
        if (deregisterOnClose) leaving.set(proxy.proxyId, proxy.dataplaneKey);
      }
    }
    await Promise.all([...leaving].map(([proxyId, key]) => this.#deregister(proxyId, key)));
  }

  /**
   * Universal flow: stores the Dataplane the proxy brought (create, or replace the one a proxy
   * registered) unless another live proxy owns it. Writes nothing and returns the stored one
   * when it was created through the API.
   */
  async #registerFromMetadata(proxy: ConnectedProxy, dataplane: ResourceInput<'Dataplane'>): Promise<DataplaneResource | undefined> {
    if (this.#liveConnection(proxy, (other) => other.fromMetadata)) {
      throw new StreamError(status.PERMISSION_DENIED, `proxy "${proxy.proxyId}": ${OVERRIDE_DENIED}`);
    }
    const { [ORIGIN_LABEL]: _claimed, ...labels } = dataplane.labels;
    const input = { ...dataplane, labels: { ...labels, [ORIGIN_LABEL]: PROXY_ORIGIN } };
    const { manager } = this.#options;
    for (let attempt = 1; ; attempt++) {
      const existing = await this.#find(proxy.dataplaneKey);
      if (existing && createdThroughApi(existing)) return existing;
      try {
        // Exactly what was read: an API write in between is never overwritten, it is read again.
        const resource = await (existing ? manager.update({ ...input, version: existing.meta.version }) : manager.create(input));
        this.#connected({ proxy, fromMetadata: true, deregisterOnClose: true });
        this.#options.timeline.record(proxy.proxyId, { kind: 'registered', at: now(), origin: 'metadata', created: !existing, version: resource.meta.version });
        return undefined;
      } catch (error) {
        // Another writer (the proxy's other stream, the API) came in between: decide again.
        const lostRace = error instanceof ResourceConflictError || error instanceof ResourceAlreadyExistsError || error instanceof ResourceNotFoundError;
        if (!lostRace || attempt === REGISTER_ATTEMPTS) throw registrationError(proxy, error);
      }
    }
  }

  /**
   * The proxy uses the stored Dataplane as it is: one created through the API (brought in its
   * metadata or not), or, without metadata, one a proxy registered. Without any the stream still
   * goes on (the sync tracker reports `dataplane not found` and retries), registered as nothing.
   */
  #useRegistered(proxy: ConnectedProxy, existing: DataplaneResource | undefined): void {
    const registeredByProxy = existing?.meta.labels[ORIGIN_LABEL] === PROXY_ORIGIN;
    // Without metadata it can still be the proxy's own Dataplane, left from a connection that just ended.
    this.#connected({ proxy, fromMetadata: false, deregisterOnClose: registeredByProxy });
    if (!existing) return;
    this.#options.timeline.record(proxy.proxyId, {
      kind: 'registered',
      at: now(),
      origin: 'api',
      created: false,
      version: existing.meta.version,
    });
  }

  /**
   * Makes the new Dataplane visible to the sync tracker's first generation, by the strategy in force
   * now: sleep out the cache TTL in force now, drop the cached reads, or (to show the old bug) nothing.
   * Each stream waits on its own; registrations never queue behind each other. A stream that
   * closes cuts its wait short, so that it lets go of its node id at once (a proxy reconnecting
   * meanwhile would otherwise be refused as already connected until the wait ran out).
   */
  async #postCreateWait(proxy: ConnectedProxy): Promise<void> {
    const { settings, cachedManager, invalidateMeshContext, timeline } = this.#options;
    const strategy = settings.get('xds.postCreateStrategy');
    const startedAt = now();
    let cause: string;
    switch (strategy) {
      case 'sleep': {
        const ttl = settings.get('store.cache.expirationTime');
        timeline.record(proxy.proxyId, { kind: 'post-create-wait-started', at: startedAt, strategy, endsAt: startedAt + ttl });
        await this.#sleep(ttl, AbortSignal.any([this.#shutdown.signal, proxy.closed]));
        const cutShortBy = this.#shutdown.signal.aborted ? 'shutdown' : proxy.closed.aborted ? 'the stream closing' : undefined;
        cause = cutShortBy
          ? `cut short by ${cutShortBy} after ${seconds(now() - startedAt)} of ${seconds(ttl)} (strategy: sleep)`
          : `waited ${seconds(ttl)} for cache expiration (strategy: sleep)`;
        break;
      }
      case 'invalidate':
        cachedManager.invalidate(proxy.dataplaneKey);
        invalidateMeshContext(proxy.dataplaneKey.mesh);
        cause = 'invalidated the cached Dataplane and MeshContext (strategy: invalidate)';
        break;
      case 'none':
        cause = 'no wait (strategy: none)';
        break;
    }
    const at = now();
    timeline.record(proxy.proxyId, { kind: 'post-create-wait', at, strategy, startedAt, waitedMs: at - startedAt, cause });
  }

  #connected(connection: Connection): void {
    const { proxyId, streamId } = connection.proxy;
    const streams = this.#connections.get(proxyId) ?? new Map<number, Connection>();
    this.#connections.set(proxyId, streams.set(streamId, connection));
    this.#cancelDeregistration(connection.proxy.proxyId); // it came back in time
  }

  /** The proxy's stream is over (closed, or refused half-way): deregister its Dataplane after the delay. */
  #release(proxy: ConnectedProxy): void {
    const streams = this.#connections.get(proxy.proxyId);
    const connection = streams?.get(proxy.streamId);
    streams?.delete(proxy.streamId);
    if (streams?.size === 0) this.#connections.delete(proxy.proxyId);
    if (!connection?.deregisterOnClose || this.#shutdown.signal.aborted) return;
    if (this.#liveConnection(proxy, () => true)) return; // another stream of this proxy still uses it
    this.#scheduleDeregistration(proxy.proxyId, proxy.dataplaneKey);
  }

  /**
   * At start: Dataplanes registered by proxies of an earlier run that ended without a clean
   * shutdown (a crash or a kill) get the same deregistration delay as a proxy that just left, so a
   * proxy that comes back keeps its Dataplane and one that never does stops being served.
   */
  async adoptLeftovers(): Promise<void> {
    for (const dataplane of await this.#options.manager.list('Dataplane')) {
      if (dataplane.meta.labels[ORIGIN_LABEL] !== PROXY_ORIGIN) continue;
      const proxyId = `${dataplane.meta.mesh}.${dataplane.meta.name}`;
      if (this.#pending.has(proxyId) || this.#connections.has(proxyId)) continue;
      this.#scheduleDeregistration(proxyId, { type: 'Dataplane', mesh: dataplane.meta.mesh, name: dataplane.meta.name });
    }
  }

  #scheduleDeregistration(proxyId: string, key: ResourceKey): void {
    const delay = this.#options.settings.get('xds.dataplaneDeregistrationDelay');
    const timer = setTimeout(() => {
      this.#pending.delete(proxyId);
      const deregistration = this.#deregister(proxyId, key);
      this.#deregistrations.add(deregistration);
      void deregistration.finally(() => this.#deregistrations.delete(deregistration));
    }, delay);
    const at = now();
    this.#pending.set(proxyId, { proxyId, key, dueAt: at + delay, timer });
    this.#options.timeline.record(proxyId, { kind: 'deregistration-scheduled', at, dueAt: at + delay });
  }

  #cancelDeregistration(proxyId: string): void {
    const pending = this.#pending.get(proxyId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.#pending.delete(proxyId);
  }

  /** Deletes the Dataplane if it is still a proxy-registered one (the API may have taken it over or deleted it). */
  async #deregister(proxyId: string, key: ResourceKey): Promise<void> {
    try {
      const current = await this.#find(key);
      if (current?.meta.labels[ORIGIN_LABEL] !== PROXY_ORIGIN) return;
      await this.#options.manager.delete(key, { version: current.meta.version });
      this.#options.timeline.record(proxyId, { kind: 'deregistered', at: now() });
    } catch (error) {
      if (error instanceof ResourceNotFoundError) return;
      this.#logger.error(`cannot deregister Dataplane "${key.name}" in mesh "${key.mesh}" of disconnected proxy "${proxyId}":`, error);
    }
  }

  /** Another live stream of the same proxy, matching `which`. */
  #liveConnection(proxy: ConnectedProxy, which: (other: Connection) => boolean): Connection | undefined {
    for (const other of this.#connections.get(proxy.proxyId)?.values() ?? []) {
      if (other.proxy.streamId !== proxy.streamId && which(other)) return other;
    }
    return undefined;
  }

  async #find(key: ResourceKey): Promise<DataplaneResource | undefined> {
    try {
      return await this.#options.manager.get('Dataplane', key);
    } catch (error) {
      if (error instanceof ResourceNotFoundError) return undefined;
      throw error;
    }
  }
}

/**
 * A store refusal closes the stream with a status that says whose Dataplane and why; a rule the
 * manager checks on write (an inbound port another Dataplane of the mesh uses) is the proxy's input.
 */
function registrationError(proxy: ConnectedProxy, error: unknown): unknown {
  const code =
    error instanceof ResourcePreconditionError
      ? status.FAILED_PRECONDITION
      : error instanceof ResourceConflictError || error instanceof ResourceAlreadyExistsError || error instanceof ResourceNotFoundError
        ? status.ABORTED
        : error instanceof ValidationError
          ? status.INVALID_ARGUMENT
          : undefined;
  if (code === undefined) return error;
  return new StreamError(code, `proxy "${proxy.proxyId}" cannot register its Dataplane: ${(error as Error).message}`, { cause: error });
}

/** A Dataplane without the proxy origin label was created through the API (or the UI): the API owns it. */
function createdThroughApi(existing: DataplaneResource): boolean {
  return existing.meta.labels[ORIGIN_LABEL] !== PROXY_ORIGIN;
}

/**
 * A proxy may bring the API's Dataplane in its metadata (a generated bootstrap carries it) but
 * not another one under its name: any local process could otherwise rewrite what the API created.
 */
function requireApiDataplaneAsItIs(proxy: ConnectedProxy, existing: DataplaneResource, dataplane: ResourceInput<'Dataplane'>): void {
  const difference = firstDifference(existing.spec, dataplane.spec);
  if (difference === undefined) return;
  throw new StreamError(
    status.PERMISSION_DENIED,
    `proxy "${proxy.proxyId}": Dataplane "${existing.meta.name}" in mesh "${existing.meta.mesh}" was created through the API, ` +
      `and the one in node metadata "${DATAPLANE_METADATA_KEY}" differs from it at ${difference || 'its top level'}; ` +
      'change it through the API, or connect without that metadata',
  );
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
