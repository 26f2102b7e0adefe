import type { Statement } from 'better-sqlite3';
import { isMeshScoped, type Resource, type ResourceInput, type ResourceKey, type ResourceType } from '../../shared/resources.js';
import type { Db } from './database.js';
import { BrokenRows } from './broken-rows.js';
import { BrokenRowError, ResourceAlreadyExistsError, ResourceConflictError, ResourceNotFoundError } from './errors.js';

export interface ResourceStoreOptions {
  /** Source of creation and modification times; tests pass a fixed clock. */
  now?: () => Date;
}

/** What a delete removed: enough to announce it, read without parsing the row (a broken row can be deleted too). */
export interface DeletedResource {
  key: ResourceKey;
  version: number;
}

interface ResourceRow {
  type: ResourceType;
  mesh: string;
  name: string;
  version: number;
  spec: string;
  labels: string;
  creation_time: string;
  modification_time: string;
  status: string | null;
}

/** An inbound of a stored Dataplane, as the port-collision check reads it. */
export interface StoredInbound {
  /** The Dataplane's name. */
  name: string;
  /** Index in its `networking.inbound`. */
  index: number;
  port: number;
  /** The inbound's own address, or else the Dataplane's. */
  address: string;
}

interface KeyParams {
  type: ResourceType;
  mesh: string;
  name: string;
}

/** `version` null means "whatever is stored": the write is unconditional. */
interface ExpectedVersionParams extends KeyParams {
  version: number | null;
}

interface WriteParams extends ExpectedVersionParams {
  spec: string;
  labels: string;
  time: string;
}

const KEY = 'type = @type AND mesh = @mesh AND name = @name';
const EXPECTED_VERSION = '(@version IS NULL OR version = @version)';

/**
 * Resources in SQLite, with a version per resource for optimistic concurrency.
 *
 * Every conditional write checks the version in the same statement that writes
 * (`… WHERE version = ?`), so two writers holding the same version cannot both win,
 * even from two connections or processes on the same file. Methods are synchronous
 * (better-sqlite3); `transaction` groups several of them atomically.
 */
export class ResourceStore {
  readonly #now: () => Date;
  readonly #selectOne: Statement<[KeyParams], ResourceRow>;
  readonly #selectByType: Statement<[{ type: ResourceType }], ResourceRow>;
  readonly #selectByTypeAndMesh: Statement<[{ type: ResourceType; mesh: string }], ResourceRow>;
  readonly #countByTypeAndMesh: Statement<[{ type: ResourceType; mesh: string }], number>;
  readonly #inboundsOn: Statement<unknown[], StoredInbound>;
  readonly #db: Db;
  readonly #insert: Statement<[Omit<WriteParams, 'version'> & { status: string | null }], ResourceRow>;
  readonly #update: Statement<[WriteParams], ResourceRow>;
  readonly #delete: Statement<[ExpectedVersionParams], Pick<ResourceRow, 'type' | 'mesh' | 'name' | 'version'>>;
  readonly #selectVersion: Statement<[KeyParams], number>;
  readonly #deleteInMesh: Statement<[{ mesh: string }], Pick<ResourceRow, 'type' | 'mesh' | 'name' | 'version'>>;
  readonly #writeStatus: Statement<[KeyParams & { status: string; time: string }], ResourceRow>;
  /** One reusable transaction wrapper; `immediate` takes the write lock up front (see `transaction`). */
  readonly #runInTransaction: { immediate(fn: () => unknown): unknown };
  /** The time of this store's latest write, in ms since the epoch (see `#timestamp`). */
  #lastWriteMs = -Infinity;
  /** Rows that reads found unusable; the manager adds the ones whose spec fails validation. */
  readonly brokenRows = new BrokenRows();

  constructor(db: Db, options: ResourceStoreOptions = {}) {
    this.#db = db;
    this.#now = options.now ?? (() => new Date());
    this.#selectOne = db.prepare(`SELECT * FROM resources WHERE ${KEY}`);
    this.#selectByType = db.prepare('SELECT * FROM resources WHERE type = @type ORDER BY mesh, name');
    this.#selectByTypeAndMesh = db.prepare(
      'SELECT * FROM resources WHERE type = @type AND mesh = @mesh ORDER BY mesh, name',
    );
    this.#countByTypeAndMesh = db
      .prepare<[{ type: ResourceType; mesh: string }], number>(
        'SELECT count(*) FROM resources WHERE type = @type AND mesh = @mesh',
      )
      .pluck();
    // ON CONFLICT DO NOTHING only covers the primary key: any other failure still throws.
    this.#insert = db.prepare(
      `INSERT INTO resources (type, mesh, name, version, spec, labels, creation_time, modification_time, status)
       VALUES (@type, @mesh, @name, 1, @spec, @labels, @time, @time, @status)
       ON CONFLICT (type, mesh, name) DO NOTHING
       RETURNING *`,
    );
    this.#update = db.prepare(
      `UPDATE resources
       SET version = version + 1, spec = @spec, labels = @labels, modification_time = @time
       WHERE ${KEY} AND ${EXPECTED_VERSION}
       RETURNING *`,
    );
    this.#delete = db.prepare(
      `DELETE FROM resources WHERE ${KEY} AND ${EXPECTED_VERSION} RETURNING type, mesh, name, version`,
    );
    this.#selectVersion = db.prepare<[KeyParams], number>(`SELECT version FROM resources WHERE ${KEY}`).pluck();
    this.#deleteInMesh = db.prepare(
      "DELETE FROM resources WHERE mesh = @mesh AND type <> 'Mesh' RETURNING type, mesh, name, version",
    );
    // A status write keeps the version (it is no user edit: a PUT holding the version still
    // applies) but moves the modification time, by which the cached manager tells content apart.
    this.#writeStatus = db.prepare(
      `UPDATE resources SET status = @status, modification_time = @time WHERE ${KEY} RETURNING *`,
    );
    this.#inboundsOn = this.#prepareInboundsOn();
    this.#runInTransaction = db.transaction((fn: () => unknown) => fn());
  }

  /** @throws ResourceNotFoundError, BrokenRowError */
  get(key: ResourceKey): Resource {
    const row = this.#selectOne.get(storageKey(key));
    if (!row) throw new ResourceNotFoundError(storageKey(key));
    return this.#parse(row);
  }

  /** @throws BrokenRowError */
  find(key: ResourceKey): Resource | undefined {
    const row = this.#selectOne.get(storageKey(key));
    return row && this.#parse(row);
  }

  /** The stored version, without reading the rest of the row (which may be broken); undefined when absent. */
  version(key: ResourceKey): number | undefined {
    return this.#selectVersion.get(storageKey(key));
  }

  /**
   * Ordered by mesh, then name. `mesh` narrows to one mesh; it is ignored for Mesh, which is global.
   * A row that does not parse is left out and reported in `brokenRows`: it must not cost the others.
   */
  list(type: ResourceType, mesh?: string): Resource[] {
    const rows =
      mesh === undefined || !isMeshScoped(type)
        ? this.#selectByType.all({ type })
        : this.#selectByTypeAndMesh.all({ type, mesh });
    const resources: Resource[] = [];
    for (const row of rows) {
      try {
        resources.push(this.#parse(row));
      } catch (error) {
        if (!(error instanceof BrokenRowError)) throw error;
      }
    }
    return resources;
  }

  count(type: ResourceType, mesh: string): number {
    return this.#countByTypeAndMesh.get({ type, mesh: isMeshScoped(type) ? mesh : '' })!;
  }

  /** The inbounds of the mesh's other Dataplanes (all but `name`) on one of `ports` and one of `addresses`. */
  inboundsOn(mesh: string, name: string, ports: readonly number[], addresses: readonly string[]): StoredInbound[] {
    return this.#inboundsOn.all(
      mesh,
      name,
      JSON.stringify(ports.map((port) => `*"port":${port}[,}]*`)),
      JSON.stringify(addresses.map((address) => `*"address":${globLiteral(JSON.stringify(address))}*`)),
      JSON.stringify(ports),
      JSON.stringify(addresses),
    );
  }

  /**
   * A plain-text GLOB on the stored JSON (as JSON.stringify wrote it) picks the few Dataplanes that
   * mention one of the ports and one of the addresses, and only those are parsed (in SQLite):
   * parsing every spec of a mesh cost milliseconds per write with a thousand Dataplanes, the size
   * of a registration storm. The patterns come as JSON lists, not one `OR` term each: a Dataplane
   * with a thousand inbounds went past SQLite's expression depth (1000) and failed with a 500.
   */
  #prepareInboundsOn(): Statement<unknown[], StoredInbound> {
    return this.#db.prepare(
      `WITH candidates AS MATERIALIZED (
         SELECT name, spec FROM resources
         WHERE type = 'Dataplane' AND mesh = ? AND name <> ?
           AND EXISTS (SELECT 1 FROM json_each(?) AS pattern WHERE spec GLOB pattern.value)
           AND EXISTS (SELECT 1 FROM json_each(?) AS pattern WHERE spec GLOB pattern.value))
       SELECT name, "index", port, address FROM (
         SELECT c.name AS name, i.key AS "index", i.value ->> '$.port' AS port,
           coalesce(i.value ->> '$.address', c.spec ->> '$.networking.address') AS address
         FROM candidates c, json_each(c.spec, '$.networking.inbound') i)
       WHERE port IN (SELECT value FROM json_each(?)) AND address IN (SELECT value FROM json_each(?))
       ORDER BY name, "index"`,
    );
  }

  /** Stores a new resource at version 1. @throws ResourceAlreadyExistsError */
  create(input: ResourceInput): Resource {
    const key = storageKey(input);
    const status = input.status === undefined ? null : JSON.stringify(input.status);
    const row = this.#insert.get({ ...key, ...this.#content(input), status, time: this.#timestamp() });
    if (!row) throw new ResourceAlreadyExistsError(key);
    return toResource(row);
  }

  /**
   * Replaces spec and labels and increments the version. When `input.version` is set the
   * write only happens if it is still the stored version.
   * @throws ResourceNotFoundError, ResourceConflictError
   */
  update(input: ResourceInput): Resource {
    const key = storageKey(input);
    return this.transaction(() => {
      const row = this.#update.get({
        ...key,
        ...this.#content(input),
        version: input.version ?? null,
        time: this.#timestamp(),
      });
      if (!row) this.#explainRejectedWrite(key, input.version);
      return toResource(row);
    });
  }

  /**
   * Replaces the status of a service-model resource (MeshService…), leaving spec, labels and version.
   * @throws ResourceNotFoundError
   */
  writeStatus(key: ResourceKey, status: NonNullable<Resource['status']>): Resource {
    const storedKey = storageKey(key);
    const row = this.#writeStatus.get({ ...storedKey, status: JSON.stringify(status), time: this.#timestamp() });
    if (!row) throw new ResourceNotFoundError(storedKey);
    return toResource(row);
  }

  /**
   * Removes a resource, only if it is still at `expectedVersion` when that is given.
   * @throws ResourceNotFoundError, ResourceConflictError
   */
  delete(key: ResourceKey, expectedVersion?: number): DeletedResource {
    const storedKey = storageKey(key);
    const deleted = this.transaction(() => {
      const row = this.#delete.get({ ...storedKey, version: expectedVersion ?? null });
      if (!row) this.#explainRejectedWrite(storedKey, expectedVersion);
      return { key: { type: row.type, mesh: row.mesh, name: row.name }, version: row.version };
    });
    this.brokenRows.clear({ table: 'resources', key: deleted.key });
    return deleted;
  }

  /** Removes every resource that belongs to `mesh` (not the Mesh itself); broken rows too. */
  deleteInMesh(mesh: string): DeletedResource[] {
    const deleted = this.#deleteInMesh.all({ mesh }).map((row) => ({ key: { type: row.type, mesh: row.mesh, name: row.name }, version: row.version }));
    for (const { key } of deleted) this.brokenRows.clear({ table: 'resources', key });
    return deleted;
  }

  /**
   * Runs `fn` atomically: if it throws, none of its writes remain. The transaction is
   * IMMEDIATE so that its reads and writes see one state even with other connections
   * writing to the file (a deferred one could read, then fail to upgrade to a writer).
   * Nested calls become savepoints.
   */
  transaction<T>(fn: () => T): T {
    return this.#runInTransaction.immediate(fn) as T;
  }

  /** Called inside the write's transaction, so the row read is the one the write saw. */
  #explainRejectedWrite(key: ResourceKey, expectedVersion: number | undefined): never {
    const current = this.#selectOne.get(key);
    if (!current) throw new ResourceNotFoundError(key);
    throw new ResourceConflictError(key, expectedVersion!, current.version);
  }

  /** The row as a resource; a row whose JSON does not parse is reported and thrown as a BrokenRowError. */
  #parse(row: ResourceRow): Resource {
    const key = { type: row.type, mesh: row.mesh, name: row.name };
    let resource: Resource;
    try {
      resource = toResource(row);
    } catch (error) {
      const reason = `stored JSON does not parse: ${error instanceof Error ? error.message : String(error)}`;
      this.brokenRows.report({ table: 'resources', key, reason });
      throw new BrokenRowError(key, reason);
    }
    return resource;
  }

  #content(input: ResourceInput): { spec: string; labels: string } {
    return { spec: JSON.stringify(input.spec), labels: JSON.stringify(input.labels) };
  }

  /**
   * Each write gets a later time than the one before, even within one millisecond, so a
   * resource deleted and created again never carries the stamps (version 1, creation and
   * modification time) of the one it replaced: the cached manager takes equal stamps to mean
   * equal content.
   */
  #timestamp(): string {
    this.#lastWriteMs = Math.max(this.#now().getTime(), this.#lastWriteMs + 1);
    return new Date(this.#lastWriteMs).toISOString();
  }
}

/** Text matched literally by GLOB: its wildcards each in a class of their own. */
function globLiteral(text: string): string {
  return text.replace(/[*?[]/g, (wildcard) => `[${wildcard}]`);
}

/** A global type (Mesh, HostnameGenerator): its key is stored with mesh '' whatever the caller passed. */
function storageKey(key: ResourceKey): KeyParams {
  return { type: key.type, mesh: isMeshScoped(key.type) ? key.mesh : '', name: key.name };
}

function toResource(row: ResourceRow): Resource {
  return {
    type: row.type,
    meta: {
      mesh: row.mesh,
      name: row.name,
      version: row.version,
      creationTime: row.creation_time,
      modificationTime: row.modification_time,
      labels: JSON.parse(row.labels) as Record<string, string>,
    },
    spec: JSON.parse(row.spec),
    ...(row.status !== null && { status: JSON.parse(row.status) }),
  } as Resource;
}
