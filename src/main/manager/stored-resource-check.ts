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
 * content: the result is kept under its stamps and its JSON (a few µs to serialize, against tens to
 * hundreds of µs to validate), so an edit made behind meshdesk's back that keeps the stamps is
 * checked too. What this process validated and wrote is known valid without a second check.
 */
export class StoredResourceCheck {
  readonly #brokenRows: BrokenRows;
  /** Key → the stamp (see `stampOf`) of the content found valid. */
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

  /** A resource this process has just validated and written: its reads need no second check. */
  written(resource: Resource): void {
    const key = keyOf(resource);
    this.#valid.set(keyId(key), stampOf(resource));
    this.#brokenRows.clear({ table: 'resources', key });
  }

  /** A deleted row: nothing about it is worth keeping. */
  forget(key: ResourceKey): void {
    this.#valid.delete(keyId(key));
    this.#brokenRows.clear({ table: 'resources', key });
  }

  #failure(resource: Resource): string | undefined {
    const key = keyOf(resource);
    const id = keyId(key);
    const stamp = stampOf(resource);
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

/** What a check holds for: the stored content, stamps included. */
function stampOf({ meta, spec }: Resource): string {
  return `${meta.version}\u0000${meta.modificationTime}\u0000${JSON.stringify(meta.labels)}\u0000${JSON.stringify(spec)}`;
}

function keyOf(resource: Resource): ResourceKey {
  return { type: resource.type, mesh: resource.meta.mesh, name: resource.meta.name };
}
