import type { BrokenRow } from '../../shared/storage-types.js';

export type { BrokenRow };

function rowId({ table, key }: Pick<BrokenRow, 'table' | 'key'>): string {
  return `${table}\u0000${key.type}\u0000${key.mesh}\u0000${key.name}`;
}

/**
 * The stored rows meshdesk cannot use, as reads meet them (unparseable JSON, a spec that no longer
 * passes validation after a schema change). Such a row is left out of every listing rather than
 * failing it, so it costs its own resource and nothing else; here it stays visible, with its table,
 * key and reason, until a read finds it usable again or it is written or deleted.
 */
export class BrokenRows {
  readonly #rows = new Map<string, BrokenRow>();

  /** Logs a row the first time it is found broken (each listing meets it again). */
  report(row: BrokenRow): void {
    const id = rowId(row);
    if (this.#rows.get(id)?.reason === row.reason) return;
    this.#rows.set(id, row);
    const { type, mesh, name } = row.key;
    console.warn(`ignoring stored row ${row.table} (${type}, mesh "${mesh}", name "${name}"): ${row.reason}`);
  }

  /** The row is usable (again), or gone. */
  clear(row: Pick<BrokenRow, 'table' | 'key'>): void {
    if (this.#rows.size > 0) this.#rows.delete(rowId(row));
  }

  list(): BrokenRow[] {
    return [...this.#rows.values()];
  }
}
