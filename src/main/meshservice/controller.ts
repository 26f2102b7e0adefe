// Kuma's zone components of the service model, run by meshdesk on change instead of on a timer: the
// MeshService generator (generator.ts), the VIP allocator (vip-allocator.ts), the hostname generator
// and the status updaters (status.ts). A write of a Dataplane, a MeshService (or MES, MZMS), a Mesh or
// a HostnameGenerator, or a proxy going on- or offline, schedules a pass over the meshes concerned;
// passes are coalesced and never overlap. A pass computes what Kuma's periodic components would
// converge to and writes only what differs: statuses apart from spec and version (no proxy is
// regenerated for them), the generator's MeshServices and the updater's spec fields (identities,
// state) through the manager.
import type { DestinationType, MeshExternalServiceStatus, MeshMultiZoneServiceStatus, MeshServiceStatus } from '../../shared/meshservice-types.js';
import type { DataplaneResource, Resource, ResourceKey } from '../../shared/resources.js';
import type { EventBus } from '../events/event-bus.js';
import type { ResourceManager } from '../manager/interfaces.js';
import { canonicalJson } from '../resources/canonical-json.js';
import { meshServicesMode } from '../resources/mesh-validator.js';
import { withZoneTags } from '../xds/context/zone-tag.js';
import { ResourceAlreadyExistsError, ResourceConflictError, ResourceNotFoundError, ResourcePreconditionError } from '../store/errors.js';
import { defaultHostnameGenerators } from './default-hostname-generators.js';
import { generateMeshServices, isLocalMeshService } from './generator.js';
import { selectedDataplanes } from './match.js';
import { hostnameStatuses, meshMultiZoneServiceStatus, meshServiceStatus, withCondition, type ProxyFacts } from './status.js';
import { VipAllocator, vipsOf, withVip } from './vip-allocator.js';

export interface ServiceModelControllerOptions {
  manager: ResourceManager;
  events: EventBus;
  /** The control plane's zone. */
  zone: string;
  /** Kuma's `meshService.deletionGracePeriod` (setting `meshService.deletionGracePeriod`, 1h), read on every pass. */
  deletionGracePeriodMs: () => number;
  /** Whether a Dataplane's proxy is online and holds a certificate. */
  proxyFacts: (dataplane: DataplaneResource) => ProxyFacts;
  /** Subscribes to proxies going on- or offline; returns the unsubscribe. */
  onProxyChange: (listener: () => void) => () => void;
  now?: () => Date;
}

const DESTINATION_TYPES: readonly DestinationType[] = ['MeshService', 'MeshExternalService', 'MeshMultiZoneService'];
const WATCHED = new Set(['Dataplane', 'Mesh', ...DESTINATION_TYPES]);
const ALL_MESHES = '*';

export class ServiceModelController {
  readonly #options: ServiceModelControllerOptions;
  readonly #now: () => Date;
  readonly #vips = new VipAllocator();
  readonly #pending = new Set<string>();
  #running: Promise<void> | undefined;
  /** Per mesh, the wake-up at the end of its earliest running grace period. */
  readonly #deadlineTimers = new Map<string, NodeJS.Timeout>();
  #closed = false;
  #defaultsMade = false;
  readonly #unsubscribe: (() => void)[] = [];

  constructor(options: ServiceModelControllerOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
  }

  /** Reads the VIPs in use, then follows changes from a first pass over every mesh. */
  async start(): Promise<void> {
    const { manager } = this.#options;
    for (const type of DESTINATION_TYPES) this.#vips.seed(await manager.list(type));
    this.#unsubscribe.push(
      this.#options.events.subscribe((event) => {
        // A shorter grace period may end one that is running.
        if (event.topic === 'settings.changed' && 'meshService.deletionGracePeriod' in event.changed) this.schedule(ALL_MESHES);
        if (event.topic !== 'resource.changed') return;
        const { type, mesh, name } = event.key;
        if (type === 'HostnameGenerator') this.schedule(ALL_MESHES);
        else if (type === 'Mesh') this.schedule(name);
        else if (WATCHED.has(type)) this.schedule(mesh);
      }),
      this.#options.onProxyChange(() => this.schedule(ALL_MESHES)),
    );
    this.schedule(ALL_MESHES);
    await this.settled();
  }

  /** Asks for a pass over the mesh (or every mesh with `*`) soon; passes are coalesced. */
  schedule(mesh: string): void {
    if (this.#closed) return;
    this.#pending.add(mesh);
    this.#running ??= this.#drain();
  }

  /** Resolves once no pass is scheduled or running. */
  async settled(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    for (const timer of this.#deadlineTimers.values()) clearTimeout(timer);
    this.#deadlineTimers.clear();
    await this.settled();
  }

  async #drain(): Promise<void> {
    try {
      // The rest of this event-loop turn's writes join the pass.
      await new Promise((resolve) => setImmediate(resolve));
      let tookMs = 0;
      while (this.#pending.size > 0 && !this.#closed) {
        // After a pass, a pause as long as it took: in a storm of registrations, passes take at
        // most half of the event loop, and each covers every change that came meanwhile.
        if (tookMs > 0) await new Promise((resolve) => setTimeout(resolve, tookMs));
        const startedAt = performance.now();
        const requested = [...this.#pending];
        this.#pending.clear();
        for (const mesh of await this.#meshesOf(requested)) {
          try {
            await this.#pass(mesh);
          } catch (error) {
            // A write that lost a race is done again by the pass the winner's event schedules.
            if (error instanceof ResourceConflictError || error instanceof ResourceNotFoundError || error instanceof ResourceAlreadyExistsError || error instanceof ResourcePreconditionError) continue;
            console.error(`meshservice: pass over mesh "${mesh}" failed:`, error);
          }
        }
        tookMs = performance.now() - startedAt;
      }
    } finally {
      this.#running = undefined;
    }
  }

  /** The meshes a request names; `*` is every mesh, and a store that cannot list them is logged, not thrown. */
  async #meshesOf(requested: readonly string[]): Promise<string[]> {
    if (!requested.includes(ALL_MESHES)) return [...requested];
    try {
      return (await this.#options.manager.list('Mesh')).map(({ meta }) => meta.name);
    } catch (error) {
      console.error('meshservice: cannot list the meshes for a pass:', error);
      return [];
    }
  }

  /**
   * Kuma's universal zone creates its default HostnameGenerators at start; meshdesk does when the
   * service model is first used (a mesh not Disabled, or a MeshService or MeshExternalService made
   * by hand), so that a meshdesk that never uses it stores, lists and exports nothing more than before.
   * Once per run, as Kuma's at start: one a user deletes comes back at the next start that uses the model.
   */
  async #ensureDefaultHostnameGenerators(): Promise<void> {
    if (this.#defaultsMade) return;
    this.#defaultsMade = true;
    const { manager } = this.#options;
    const existing = new Set((await manager.list('HostnameGenerator')).map(({ meta }) => meta.name));
    for (const generator of defaultHostnameGenerators()) {
      if (existing.has(generator.name)) continue;
      try {
        await manager.create(generator);
      } catch (error) {
        if (!(error instanceof ResourceAlreadyExistsError)) throw error;
      }
    }
  }

  async #pass(meshName: string): Promise<void> {
    const { manager, zone } = this.#options;
    const mesh = await manager.get('Mesh', { mesh: '', name: meshName }).catch((error: unknown) => {
      if (error instanceof ResourceNotFoundError) return undefined;
      throw error;
    });
    if (mesh === undefined) return;
    const enabled = meshServicesMode(mesh.spec) !== 'Disabled';
    const meshServices = await manager.list('MeshService', { mesh: meshName });
    const inUse = enabled || meshServices.length > 0 || (await manager.list('MeshExternalService', { mesh: meshName })).length > 0;
    // A mesh that does not use the model (every mesh before it existed) costs no Dataplane read.
    if (!inUse && (await manager.list('MeshMultiZoneService', { mesh: meshName })).length === 0) return;
    if (inUse) await this.#ensureDefaultHostnameGenerators();
    // As Kuma stores them: its Dataplane manager writes the zone into every inbound's tags, which selectors can name.
    const dataplanes = (await manager.list('Dataplane', { mesh: meshName })).map((dataplane) => withZoneTags(dataplane, mesh, zone));
    const generation = generateMeshServices({
      mesh: meshName,
      zone,
      enabled,
      dataplanes,
      meshServices,
      now: this.#now(),
      deletionGracePeriodMs: this.#options.deletionGracePeriodMs(),
    });
    for (const [name, conflicting] of generation.conflicts) {
      console.warn(`meshservice: MeshService "${name}" in mesh "${meshName}": port conflict, ports must be identical across Dataplane inbounds grouped into a single MeshService (${conflicting.join(', ')})`);
    }
    const upserts = generation.writes.flatMap((write) => (write.kind === 'delete' ? [] : [write.input]));
    if (upserts.length > 0) await manager.writeAll(upserts);
    for (const write of generation.writes) if (write.kind === 'delete') await manager.delete(write.key, { version: write.version });
    this.#scheduleDeadline(meshName, generation.nextDeadline);
    await this.#updateStatuses(meshName, dataplanes, mesh.spec.mtls?.enabledBackend !== undefined && mesh.spec.mtls.enabledBackend !== '');
  }

  /** The grace period's end wakes the mesh's next pass (Kuma's generator finds it on its next tick). */
  #scheduleDeadline(mesh: string, deadline: number | undefined): void {
    clearTimeout(this.#deadlineTimers.get(mesh));
    this.#deadlineTimers.delete(mesh);
    if (deadline === undefined || this.#closed) return;
    const delay = Math.max(0, deadline - this.#now().getTime()) + 1;
    // Node's timers hold at most ~24.8 days: a longer grace period is re-armed by the pass this one wakes.
    const timer = setTimeout(() => {
      this.#deadlineTimers.delete(mesh);
      this.schedule(mesh);
    }, Math.min(delay, 2 ** 31 - 1));
    timer.unref();
    this.#deadlineTimers.set(mesh, timer);
  }

  async #updateStatuses(meshName: string, dataplanes: readonly DataplaneResource[], mtlsEnabled: boolean): Promise<void> {
    const { manager, zone, proxyFacts } = this.#options;
    const generators = await manager.list('HostnameGenerator');
    const meshServices = await manager.list('MeshService', { mesh: meshName });
    const statusWrites: { key: ResourceKey; status: NonNullable<Resource['status']> }[] = [];
    const specWrites: Resource<'MeshService'>[] = [];
    for (const type of DESTINATION_TYPES) {
      const resources: Resource[] = type === 'MeshService' ? meshServices : await manager.list(type, { mesh: meshName });
      const hostnames = hostnameStatuses(zone, generators, resources);
      for (const resource of resources) {
        const current = (resource.status ?? {}) as MeshServiceStatus & MeshExternalServiceStatus & MeshMultiZoneServiceStatus;
        let next: typeof current = { ...current };
        if (vipsOf(resource).length === 0) next = withVip(type, next, this.#vips.allocate(type));
        const { addresses, hostnameGenerators } = hostnames.get(resource)!;
        next = { ...withoutKeys(next, ['addresses', 'hostnameGenerators']), ...(addresses.length > 0 && { addresses }), ...(hostnameGenerators.length > 0 && { hostnameGenerators }) };
        if (type === 'MeshService' && isLocalMeshService(resource)) {
          const meshService = resource as Resource<'MeshService'>;
          const computed = meshServiceStatus({
            spec: meshService.spec,
            status: current,
            dataplanes: selectedDataplanes(meshService.spec, dataplanes),
            proxyFacts,
            mtlsEnabled,
          });
          next = { ...next, tls: computed.tls, dataplaneProxies: computed.dataplaneProxies };
          if (!sameJson(meshService.spec.identities ?? [], computed.identities) || meshService.spec.state !== computed.state) {
            specWrites.push({ ...meshService, spec: { ...meshService.spec, identities: computed.identities, state: computed.state } });
          }
        }
        if (type === 'MeshMultiZoneService') {
          const spec = (resource as Resource<'MeshMultiZoneService'>).spec;
          const { meshServices: matched, condition } = meshMultiZoneServiceStatus(spec.selector?.meshService?.matchLabels, meshServices);
          next = { ...next, meshServices: matched, conditions: withCondition(current.conditions, condition) };
        }
        if (!sameJson(current, next)) statusWrites.push({ key: { type, mesh: meshName, name: resource.meta.name }, status: next });
      }
    }
    await manager.writeStatuses(statusWrites);
    // The updater's spec fields go through the manager (a new version: identities reach the proxies' SANs).
    if (specWrites.length > 0) {
      await manager.writeAll(specWrites.map(({ type, meta, spec }) => ({ type, mesh: meta.mesh, name: meta.name, labels: meta.labels, spec, version: meta.version })));
    }
  }
}

function withoutKeys<T extends object>(value: T, keys: readonly string[]): T {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key))) as T;
}

/** Key order aside, the same JSON. */
function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
