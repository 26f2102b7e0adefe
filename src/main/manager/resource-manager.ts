import type { EventBus } from '../events/event-bus.js';
import { computeLabels, ZONE_NAME } from '../resources/computed-labels.js';
import { defaultMesh } from '../resources/kuma-json.js';
import { validateResourceInput } from '../resources/validate.js';
import { ValidationError } from '../resources/validation-error.js';
import { BrokenRowError, ResourceAlreadyExistsError, ResourcePreconditionError } from '../store/errors.js';
import { GroupCommit } from '../store/group-commit.js';
import type { BrokenRow } from '../store/broken-rows.js';
import type { ResourceStore } from '../store/resource-store.js';
import { StoredResourceCheck } from './stored-resource-check.js';
import { initialPolicies } from './initial-policies.js';
import { plural } from '../../shared/plural.js';
import { RESOURCE_TYPES, isMeshScoped, type Resource, type ResourceInput, type ResourceKey, type ResourceType } from '../../shared/resources.js';
import type { ListOptions, ResourceManager as ResourceManagerContract, StatusWrite, UpsertOptions, UpsertResult } from './interfaces.js';

export interface ResourceManagerOptions {
  store: ResourceStore;
  events: EventBus;
}

/** Dataplane names quoted in a refused mesh delete; the count is always exact. */
const NAMED_DATAPLANES = 10;

/**
 * The uncached manager (Kuma's ResourceManager): validates every write, enforces the relations
 * between resources (a Dataplane needs its mesh; a mesh with dataplanes cannot go) in the same
 * transaction as the write, and announces each committed write on the event bus. Writes of the
 * same event-loop turn share one commit (see GroupCommit); reads go to the store at once.
 */
export class ResourceManager implements ResourceManagerContract {
  readonly #store: ResourceStore;
  readonly #events: EventBus;
  readonly #commits: GroupCommit;
  readonly #check: StoredResourceCheck;

  constructor(options: ResourceManagerOptions) {
    this.#store = options.store;
    this.#events = options.events;
    this.#commits = new GroupCommit((fn) => this.#store.transaction(fn));
    this.#check = new StoredResourceCheck(this.#store.brokenRows);
  }

  /** @throws ResourceNotFoundError, BrokenRowError (a stored row that does not parse or validate) */
  async get<T extends ResourceType>(type: T, key: { mesh: string; name: string }): Promise<Resource<T>> {
    return this.#check.require(this.#store.get({ type, ...key })) as Resource<T>;
  }

  /** Broken rows are left out (and reported by `brokenRows`): one bad row must not cost a mesh its config. */
  async list<T extends ResourceType>(type: T, options: ListOptions = {}): Promise<Resource<T>[]> {
    return this.#store.list(type, options.mesh).filter((resource) => this.#check.usable(resource)) as Resource<T>[];
  }

  brokenRows(): BrokenRow[] {
    return this.#store.brokenRows.list();
  }

  /** Reads every stored resource once, so that start-up logs each broken row by its key and goes on. */
  async checkStoredResources(): Promise<void> {
    for (const type of RESOURCE_TYPES) await this.list(type);
  }

  async create<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>> {
    validateResourceInput(input);
    return this.#create(input);
  }

  async update<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>> {
    validateResourceInput(input);
    return this.#update(input);
  }

  /**
   * Without `input.version`: create or replace, last write wins, however many write at once. The
   * choice between the two, and the caller's precondition, are decided inside the write's
   * transaction, so no other writer (another request, another process on the file) can come
   * between the read and the write; a read before the write and a conditional update, retried,
   * lost to 100 concurrent writers most of the time.
   * With `input.version`: update exactly that version, or fail with a conflict; never a create.
   */
  async upsert<T extends ResourceType>(input: ResourceInput<T>, options: UpsertOptions<T> = {}): Promise<UpsertResult<T>> {
    validateResourceInput(input);
    const result = await this.#commits.run(() => {
      options.precondition?.(this.#storedOrBroken(input) as Resource<T> | undefined);
      // The version alone: a broken stored row can still be replaced.
      if (input.version === undefined && this.#store.version(input) === undefined) {
        const [resource, ...initial] = this.#createInTransaction(input);
        return { resource: resource!, created: true, initial };
      }
      return { resource: this.#updateInTransaction(input), created: false, initial: [] };
    });
    this.#publish(result.created ? 'created' : 'updated', result.resource);
    for (const policy of result.initial) this.#publish('created', policy);
    return { resource: result.resource, created: result.created } as UpsertResult<T>;
  }

  /** The stored resource for a precondition to judge; a broken row is judged as absent, so that a write can repair it. */
  #storedOrBroken(key: ResourceKey): Resource | undefined {
    try {
      return this.#store.find(key);
    } catch (error) {
      if (error instanceof BrokenRowError) return undefined;
      throw error;
    }
  }

  /**
   * All or nothing: writes every input in one transaction, in order. An input without `version` is
   * created (it must not exist yet); one with `version` updates exactly that version. If any write
   * fails (it exists, a concurrent change, a missing mesh), none of them remains.
   */
  async writeAll(inputs: ResourceInput[]): Promise<UpsertResult[]> {
    for (const input of inputs) validateResourceInput(input);
    // A new Mesh's initial policies that the same write carries are written as it carries them.
    const carried = new Set(inputs.map(keyText));
    const initial: Resource[] = [];
    const written = await this.#commits.run(() =>
      inputs.map((input): UpsertResult => {
        if (input.version !== undefined) return { resource: this.#updateInTransaction(input), created: false };
        const [resource, ...policies] = this.#createInTransaction(input, carried);
        initial.push(...policies);
        return { resource: resource!, created: true };
      }),
    );
    for (const { resource, created } of written) this.#publish(created ? 'created' : 'updated', resource);
    for (const policy of initial) this.#publish('created', policy);
    return written;
  }

  /** A Mesh goes with its policies (as Kuma's mesh manager deletes them), and only once it has no Dataplanes. */
  async delete(key: ResourceKey, options: { version?: number } = {}): Promise<void> {
    const deleted = await this.#commits.run(() => {
      if (key.type !== 'Mesh') return [this.#store.delete(key, options.version)];
      this.#requireMeshWithoutDataplanes(key);
      const mesh = this.#store.delete(key, options.version);
      return [...this.#store.deleteInMesh(key.name), mesh];
    });
    for (const each of deleted) this.#announce('deleted', each.key, each.version);
  }

  /**
   * The control plane's statuses of service-model resources (meshservice/controller.ts), in one
   * commit. Neither a version nor an event: a status is not a user's edit, and announcing it would
   * wake the writers of the next status. A resource deleted meanwhile is skipped.
   */
  async writeStatuses(writes: readonly StatusWrite[]): Promise<void> {
    if (writes.length === 0) return;
    await this.#commits.run(() => {
      for (const { key, status } of writes) {
        if (this.#store.version(key) !== undefined) this.#store.writeStatus(key, status);
      }
    });
  }

  /** Creates the mesh `default` unless it exists (SPEC §3: it exists from the start). */
  async ensureDefaultMesh(): Promise<void> {
    if (this.#store.version(defaultMesh()) !== undefined) return;
    try {
      await this.create(defaultMesh());
    } catch (error) {
      // Another meshdesk on the same data directory created it first: that is what we wanted.
      if (!(error instanceof ResourceAlreadyExistsError)) throw error;
    }
  }

  async #create<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>> {
    const [created, ...initial] = await this.#commits.run(() => this.#createInTransaction(input));
    for (const resource of [created!, ...initial]) this.#publish('created', resource);
    return created as Resource<T>;
  }

  /**
   * The created resource first; a new Mesh is followed by its initial policies (Kuma's defaults),
   * written in the same transaction so that a mesh never exists without them. Those in `carried`
   * (the same write brings its own) and those that already exist are left alone, as Kuma does.
   */
  #createInTransaction(input: ResourceInput, carried: ReadonlySet<string> = new Set()): Resource[] {
    if (isMeshScoped(input.type)) this.#requireMesh(input);
    if (input.type === 'Dataplane') this.#requireFreeInboundPorts(input as ResourceInput<'Dataplane'>);
    const created = this.#store.create(this.#labelled(input));
    if (input.type !== 'Mesh') return [created];
    const initial = initialPolicies(input.name, (input as ResourceInput<'Mesh'>).spec).filter(
      (policy) => !carried.has(keyText(policy)) && this.#store.version(policy) === undefined,
    );
    return [
      created,
      ...initial.map((policy) => {
        validateResourceInput(policy); // a long mesh name can make too long a policy name, as in Kuma
        return this.#store.create(this.#labelled(policy));
      }),
    ];
  }

  #updateInTransaction(input: ResourceInput): Resource {
    if (input.type === 'Dataplane') this.#requireFreeInboundPorts(input as ResourceInput<'Dataplane'>);
    return this.#store.update(this.#labelled(input));
  }

  /** As Kuma's managers do on every create and update, whoever writes (the API, a proxy registering, an import). */
  #labelled(input: ResourceInput): ResourceInput {
    return { ...input, labels: computeLabels(input, ZONE_NAME) };
  }

  async #update<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>> {
    const updated = await this.#commits.run(() => this.#updateInTransaction(input));
    this.#publish('updated', updated);
    return updated as Resource<T>;
  }

  #requireMesh(key: ResourceKey): void {
    if (!this.#store.find({ type: 'Mesh', mesh: '', name: key.mesh })) {
      throw new ResourcePreconditionError(key, `mesh "${key.mesh}" does not exist`);
    }
  }

  #requireMeshWithoutDataplanes(key: ResourceKey): void {
    const dataplanes = this.#store.list('Dataplane', key.name);
    if (dataplanes.length === 0) return;
    const names = dataplanes.slice(0, NAMED_DATAPLANES).map((dataplane) => dataplane.meta.name);
    const more = dataplanes.length - names.length;
    const listed = more > 0 ? `${names.join(', ')}, and ${more} more` : names.join(', ');
    throw new ResourcePreconditionError(key, `still has ${plural(dataplanes.length, 'dataplane')} (${listed}); delete them first`);
  }

  /**
   * Two inbounds on one address and port cannot both listen: the second proxy's listener fails
   * and the mesh's endpoints for that address:port point at whichever answers. Checked in the
   * write's transaction, so two writers cannot both take the same port.
   */
  #requireFreeInboundPorts(input: ResourceInput<'Dataplane'>): void {
    const { address, inbound = [] } = input.spec.networking;
    if (inbound.length === 0) return;
    const taken = this.#store.inboundsOn(
      input.mesh,
      input.name,
      inbound.map((each) => each.port),
      inbound.map((each) => each.address ?? address),
    );
    const violations = inbound.flatMap((each, index) => {
      const listensOn = each.address ?? address;
      const other = taken.find((stored) => stored.port === each.port && stored.address === listensOn);
      if (!other) return [];
      return [
        {
          field: `networking.inbound[${index}].port`,
          message: `${listensOn}:${each.port} is already used by networking.inbound[${other.index}] of Dataplane "${other.name}"; choose another port`,
        },
      ];
    });
    if (violations.length > 0) {
      throw new ValidationError(`Dataplane "${input.name}" in mesh "${input.mesh}" is not valid`, violations);
    }
  }

  #publish(change: 'created' | 'updated', resource: Resource): void {
    this.#check.written(resource); // validated before it was written
    this.#announce(change, { type: resource.type, mesh: resource.meta.mesh, name: resource.meta.name }, resource.meta.version);
  }

  /** Called only once the write's transaction has committed, so listeners can read what they are told about. */
  #announce(change: 'created' | 'updated' | 'deleted', key: ResourceKey, version: number): void {
    if (change === 'deleted') this.#check.forget(key);
    this.#events.publish({ topic: 'resource.changed', change, key, version });
  }
}

function keyText({ type, mesh, name }: ResourceKey): string {
  return JSON.stringify([type, isMeshScoped(type) ? mesh : '', name]);
}
