import type { EventBus } from '../../events/event-bus.js';
import type { ListOptions, ResourceManager, StatusWrite, UpsertOptions, UpsertResult } from '../../manager/interfaces.js';
import type { Resource, ResourceInput, ResourceKey, ResourceType } from '../../../shared/resources.js';
import type { BrokenRow } from '../../../shared/storage-types.js';
import { ResourceAlreadyExistsError, ResourceConflictError, ResourceNotFoundError } from '../errors.js';
import type { StorageClient } from './storage-client.js';

/**
 * The resource manager of the storage worker, seen from the main thread: each call is answered by
 * the worker's ResourceManager (validation, relation checks, group commits), and each write it
 * commits is published on this thread's event bus before the call returns.
 */
export class RemoteResourceManager implements ResourceManager {
  readonly #storage: StorageClient;

  constructor(storage: StorageClient, events: EventBus) {
    this.#storage = storage;
    storage.onEvent((event) => events.publish(event));
  }

  async get<T extends ResourceType>(type: T, key: { mesh: string; name: string }): Promise<Resource<T>> {
    return (await this.#storage.call('resources.get', type, { mesh: key.mesh, name: key.name })) as Resource<T>;
  }

  async list<T extends ResourceType>(type: T, options: ListOptions = {}): Promise<Resource<T>[]> {
    return (await this.#storage.call('resources.list', type, options)) as Resource<T>[];
  }

  async create<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>> {
    return (await this.#storage.call('resources.create', input)) as Resource<T>;
  }

  async update<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>> {
    return (await this.#storage.call('resources.update', input)) as Resource<T>;
  }

  /**
   * A precondition cannot cross to the worker, so it is judged here, on the stored resource, and the
   * write carries what it judged: that version, or "nothing stored" (a create). A concurrent change
   * in between fails that write, and the precondition is judged again on what is stored then.
   */
  async upsert<T extends ResourceType>(input: ResourceInput<T>, options: UpsertOptions<T> = {}): Promise<UpsertResult<T>> {
    const { precondition } = options;
    if (!precondition) return (await this.#storage.call('resources.upsert', input)) as UpsertResult<T>;
    for (;;) {
      const current = (await this.#storage.call('resources.storedOrBroken', input)) as Resource<T> | undefined;
      precondition(current);
      const judged = input.version ?? current?.meta.version;
      try {
        if (judged === undefined) return { resource: await this.create(input), created: true };
        return { resource: await this.update({ ...input, version: judged }), created: false };
      } catch (error) {
        const changedMeanwhile =
          input.version === undefined &&
          (error instanceof ResourceAlreadyExistsError || error instanceof ResourceConflictError || error instanceof ResourceNotFoundError);
        if (!changedMeanwhile) throw error;
      }
    }
  }

  async writeAll(inputs: ResourceInput[]): Promise<UpsertResult[]> {
    return this.#storage.call('resources.writeAll', inputs);
  }

  async delete(key: ResourceKey, options: { version?: number } = {}): Promise<void> {
    await this.#storage.call('resources.delete', key, options);
  }

  async writeStatuses(writes: readonly StatusWrite[]): Promise<void> {
    if (writes.length > 0) await this.#storage.call('resources.writeStatuses', writes);
  }

  brokenRows(): BrokenRow[] {
    return this.#storage.brokenRows();
  }

  /** Reads every stored resource once, so that start-up logs each broken row by its key and goes on. */
  async checkStoredResources(): Promise<void> {
    await this.#storage.call('resources.checkStored');
  }

  /** Creates the mesh `default` unless it exists. */
  async ensureDefaultMesh(): Promise<void> {
    await this.#storage.call('resources.ensureDefaultMesh');
  }
}
