import type { EventBus } from '../events/event-bus.js';
import { defaultMesh } from '../resources/kuma-json.js';
import { validateResourceInput } from '../resources/validate.js';
import {
  ResourceAlreadyExistsError,
  ResourceConflictError,
  ResourceNotFoundError,
  ResourcePreconditionError,
} from '../store/errors.js';
import { GroupCommit } from '../store/group-commit.js';
import type { BrokenRow } from '../store/broken-rows.js';
import type { ResourceStore } from '../store/resource-store.js';
import { StoredResourceCheck } from './stored-resource-check.js';
import { RESOURCE_TYPES, type Resource, type ResourceInput, type ResourceKey, type ResourceType } from '../../shared/resources.js';
import type { ListOptions, ResourceManager as ResourceManagerContract, UpsertResult } from './interfaces.js';

export interface ResourceManagerOptions {
  store: ResourceStore;
  events: EventBus;
}

/** How many times an upsert without a caller version re-reads and retries after losing to a concurrent writer. */
const UPSERT_ATTEMPTS = 5;
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

  async upsert<T extends ResourceType>(input: ResourceInput<T>): Promise<UpsertResult<T>> {
    validateResourceInput(input);
    for (let attempt = 1; ; attempt++) {
      // The version alone: a broken stored row can still be replaced.
      const current = this.#store.version(input);
      try {
        // A caller version means "update exactly that version": never turn it into a create.
        if (current === undefined && input.version === undefined) {
          return { resource: await this.#create(input), created: true };
        }
        const version = input.version ?? current;
        return { resource: await this.#update({ ...input, version }), created: false };
      } catch (error) {
        const lostRace =
          error instanceof ResourceConflictError ||
          error instanceof ResourceAlreadyExistsError ||
          error instanceof ResourceNotFoundError;
        if (input.version !== undefined || !lostRace || attempt === UPSERT_ATTEMPTS) throw error;
        // Someone wrote between our read and our commit: read again and retry.
      }
    }
  }

  /**
   * All or nothing: writes every input in one transaction, in order. An input without `version` is
   * created (it must not exist yet); one with `version` updates exactly that version. If any write
   * fails (it exists, a concurrent change, a missing mesh), none of them remains.
   */
  async writeAll(inputs: ResourceInput[]): Promise<UpsertResult[]> {
    for (const input of inputs) validateResourceInput(input);
    const written = await this.#commits.run(() =>
      inputs.map((input): UpsertResult =>
        input.version === undefined
          ? { resource: this.#insert(input), created: true }
          : { resource: this.#store.update(input), created: false },
      ),
    );
    for (const { resource, created } of written) this.#publish(created ? 'created' : 'updated', resource);
    return written;
  }

  async delete(key: ResourceKey, options: { version?: number } = {}): Promise<void> {
    const deleted = await this.#commits.run(() => {
      if (key.type === 'Mesh') this.#requireMeshWithoutDataplanes(key);
      return this.#store.delete(key, options.version);
    });
    this.#announce('deleted', deleted.key, deleted.version);
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
    const created = await this.#commits.run(() => this.#insert(input));
    this.#publish('created', created);
    return created as Resource<T>;
  }

  /** Inside a transaction: the mesh check and the insert see one state. */
  #insert(input: ResourceInput): Resource {
    if (input.type === 'Dataplane') this.#requireMesh(input);
    return this.#store.create(input);
  }

  async #update<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>> {
    const updated = await this.#commits.run(() => this.#store.update(input));
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
    const noun = dataplanes.length === 1 ? 'dataplane' : 'dataplanes';
    throw new ResourcePreconditionError(
      key,
      `still has ${dataplanes.length} ${noun} (${listed}); delete them first`,
    );
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
