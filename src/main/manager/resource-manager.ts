import type { EventBus } from '../events/event-bus.js';
import { defaultMesh } from '../resources/kuma-json.js';
import { validateResourceInput } from '../resources/validate.js';
import { ValidationError } from '../resources/validation-error.js';
import {
  ResourceAlreadyExistsError,
  ResourceConflictError,
  ResourceNotFoundError,
  ResourcePreconditionError,
} from '../store/errors.js';
import { GroupCommit } from '../store/group-commit.js';
import type { ResourceStore } from '../store/resource-store.js';
import { plural } from '../../shared/plural.js';
import type { Resource, ResourceInput, ResourceKey, ResourceType } from '../../shared/resources.js';
import type { ListOptions, ResourceManager as ResourceManagerContract, UpsertOptions, UpsertResult } from './interfaces.js';

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

  constructor(options: ResourceManagerOptions) {
    this.#store = options.store;
    this.#events = options.events;
    this.#commits = new GroupCommit((fn) => this.#store.transaction(fn));
  }

  async get<T extends ResourceType>(type: T, key: { mesh: string; name: string }): Promise<Resource<T>> {
    return this.#store.get({ type, ...key }) as Resource<T>;
  }

  async list<T extends ResourceType>(type: T, options: ListOptions = {}): Promise<Resource<T>[]> {
    return this.#store.list(type, options.mesh) as Resource<T>[];
  }

  async create<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>> {
    validateResourceInput(input);
    return this.#create(input);
  }

  async update<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>> {
    validateResourceInput(input);
    return this.#update(input);
  }

  async upsert<T extends ResourceType>(input: ResourceInput<T>, options: UpsertOptions<T> = {}): Promise<UpsertResult<T>> {
    validateResourceInput(input);
    for (let attempt = 1; ; attempt++) {
      const current = this.#store.find(input) as Resource<T> | undefined;
      options.precondition?.(current);
      try {
        // A caller version means "update exactly that version": never turn it into a create.
        if (!current && input.version === undefined) {
          return { resource: await this.#create(input), created: true };
        }
        const version = input.version ?? current?.meta.version;
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

  async delete(key: ResourceKey, options: { version?: number } = {}): Promise<void> {
    const deleted = await this.#commits.run(() => {
      if (key.type === 'Mesh') this.#requireMeshWithoutDataplanes(key);
      return this.#store.delete(key, options.version);
    });
    this.#publish('deleted', deleted);
  }

  /** Creates the mesh `default` unless it exists (SPEC §3: it exists from the start). */
  async ensureDefaultMesh(): Promise<void> {
    if (this.#store.find(defaultMesh())) return;
    try {
      await this.create(defaultMesh());
    } catch (error) {
      // Another meshdesk on the same data directory created it first: that is what we wanted.
      if (!(error instanceof ResourceAlreadyExistsError)) throw error;
    }
  }

  async #create<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>> {
    const created = await this.#commits.run(() => {
      if (input.type === 'Dataplane') {
        this.#requireMesh(input);
        this.#requireFreeInboundPorts(input as ResourceInput<'Dataplane'>);
      }
      return this.#store.create(input);
    });
    this.#publish('created', created);
    return created as Resource<T>;
  }

  async #update<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>> {
    const updated = await this.#commits.run(() => {
      if (input.type === 'Dataplane') this.#requireFreeInboundPorts(input as ResourceInput<'Dataplane'>);
      return this.#store.update(input);
    });
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

  /** Called only once the write's transaction has committed, so listeners can read what they are told about. */
  #publish(change: 'created' | 'updated' | 'deleted', resource: Resource): void {
    this.#events.publish({
      topic: 'resource.changed',
      change,
      key: { type: resource.type, mesh: resource.meta.mesh, name: resource.meta.name },
      version: resource.meta.version,
    });
  }
}
