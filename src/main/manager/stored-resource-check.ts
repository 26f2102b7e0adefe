import type { Resource, ResourceInput, ResourceKey } from '../../shared/resources.js';
import { validateResourceInput } from '../resources/validate.js';
import { ValidationError } from '../resources/validation-error.js';
import type { BrokenRows } from '../store/broken-rows.js';
import { BrokenRowError } from '../store/errors.js';

function keyId({ type, mesh, name }: ResourceKey): string {
  return `${type}\u0000${mesh}\u0000${name}`;
}

/**
 * Checks what is read from the store against today's rules, as every write is: a row written by an
 * older meshdesk (or by hand) may no longer pass them, and the generator trusts validated input, so
 * one such Dataplane would otherwise break the config of its whole mesh. A row is checked once per
 * stored version: the result is kept under its version and modification time, which every write
 * changes.
 */
export class StoredResourceCheck {
  readonly #brokenRows: BrokenRows;
  /** Key → the stamp of the version found valid. */
  readonly #valid = new Map<string, string>();

  constructor(brokenRows: BrokenRows) {
    this.#brokenRows = brokenRows;
  }

  /** True when `resource` passes validation; otherwise reports it as a broken row. */
  usable(resource: Resource): boolean {
    return this.#failure(resource) === undefined;
  }

  /** @throws BrokenRowError when `resource` fails validation */
  require<R extends Resource>(resource: R): R {
    const reason = this.#failure(resource);
    if (reason !== undefined) throw new BrokenRowError(keyOf(resource), reason);
    return resource;
  }

  /** A write or delete of `key` makes whatever was known about its row stale. */
  forget(key: ResourceKey): void {
    this.#valid.delete(keyId(key));
    this.#brokenRows.clear({ table: 'resources', key });
  }

  #failure(resource: Resource): string | undefined {
    const key = keyOf(resource);
    const id = keyId(key);
    const stamp = `${resource.meta.version}\u0000${resource.meta.modificationTime}`;
    if (this.#valid.get(id) === stamp) return undefined;
    try {
      const { type, spec, meta } = resource;
      validateResourceInput({ type, mesh: key.mesh, name: key.name, labels: meta.labels, spec } as ResourceInput);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const reason = `fails validation: ${error.message}`;
      this.#brokenRows.report({ table: 'resources', key, reason });
      return reason;
    }
    this.#valid.set(id, stamp);
    this.#brokenRows.clear({ table: 'resources', key });
    return undefined;
  }
}

function keyOf(resource: Resource): ResourceKey {
  return { type: resource.type, mesh: resource.meta.mesh, name: resource.meta.name };
}
