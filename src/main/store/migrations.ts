import type Database from 'better-sqlite3';

/**
 * Schema migrations, applied in order and recorded in `PRAGMA user_version`.
 * Never edit a migration that has shipped: append a new one.
 */
const MIGRATIONS: readonly string[] = [
  // 1: resources and settings
  `CREATE TABLE resources (
     type TEXT NOT NULL,
     mesh TEXT NOT NULL,
     name TEXT NOT NULL,
     version INTEGER NOT NULL,
     spec TEXT NOT NULL,
     labels TEXT NOT NULL,
     creation_time TEXT NOT NULL,
     modification_time TEXT NOT NULL,
     PRIMARY KEY (type, mesh, name)
   ) WITHOUT ROWID;
   CREATE INDEX resources_by_mesh ON resources (mesh, type);
   CREATE TABLE settings (
     name TEXT PRIMARY KEY,
     value TEXT NOT NULL,
     modification_time TEXT NOT NULL
   ) WITHOUT ROWID;`,
  // 2: every snapshot published to a proxy (store/snapshot-history.ts). AUTOINCREMENT so that an
  // id is never reused after pruning: a UI holding an id never gets another snapshot for it.
  `CREATE TABLE snapshot_history (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     proxy_id TEXT NOT NULL,
     created_at REAL NOT NULL,
     versions TEXT NOT NULL,
     changed_types TEXT NOT NULL,
     resources TEXT NOT NULL
   );
   CREATE INDEX snapshot_history_by_proxy ON snapshot_history (proxy_id, id);`,
  // 3: per-Dataplane tokens (security/dataplane-tokens.ts): only a hash of each token is kept,
  // so a copy of the database does not let anyone connect as a proxy.
  `CREATE TABLE dataplane_tokens (
     mesh TEXT NOT NULL,
     name TEXT NOT NULL,
     token_hash TEXT NOT NULL,
     issued_at TEXT NOT NULL,
     PRIMARY KEY (mesh, name)
   ) WITHOUT ROWID;`,
  // 4: snapshot history stored by content. A type's version is a hash of its content, and most
  // snapshots repeat most of their types (and proxies of one service share them), so each
  // distinct (type, version) keeps its resources once, counting the snapshots that name it in
  // their `versions`; it goes when the count drops to zero.
  `CREATE TABLE snapshot_payloads (
     type_url TEXT NOT NULL,
     version TEXT NOT NULL,
     resources TEXT NOT NULL,
     snapshots INTEGER NOT NULL,
     PRIMARY KEY (type_url, version)
   ) WITHOUT ROWID;
   INSERT INTO snapshot_payloads (type_url, version, resources, snapshots)
     SELECT version.key, version.value, coalesce(min(resources.value), '[]'), count(*)
     FROM snapshot_history, json_each(snapshot_history.versions) AS version
     LEFT JOIN json_each(snapshot_history.resources) AS resources ON resources.key = version.key
     GROUP BY version.key, version.value;
   ALTER TABLE snapshot_history DROP COLUMN resources;`,
  // 5: each snapshot numbered per proxy (1, 2, 3… of that proxy), which is what the History tab
  // shows: the global id made a proxy's first version "#3". Existing rows are numbered in order.
  `ALTER TABLE snapshot_history ADD COLUMN number INTEGER NOT NULL DEFAULT 0;
   UPDATE snapshot_history SET number = (
     SELECT count(*) FROM snapshot_history AS earlier
     WHERE earlier.proxy_id = snapshot_history.proxy_id AND earlier.id <= snapshot_history.id
   );`,
  // 6: the policies changed in the mesh since the proxy's previous snapshot, so that the History
  // tab names the change behind each version (a JSON list of PolicyVersionChange).
  `ALTER TABLE snapshot_history ADD COLUMN policy_changes TEXT NOT NULL DEFAULT '[]';`,
  // 7: history bounded in bytes. Each payload's size in UTF-8 bytes, and each snapshot's: the sizes
  // of every payload it names, so that what the history holds is known without reading payloads.
  `ALTER TABLE snapshot_payloads ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
   UPDATE snapshot_payloads SET bytes = length(CAST(resources AS BLOB));
   ALTER TABLE snapshot_history ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
   UPDATE snapshot_history SET bytes = (
     SELECT total(payload.bytes) FROM json_each(snapshot_history.versions) AS version
     JOIN snapshot_payloads AS payload ON payload.type_url = version.key AND payload.version = version.value
   );`,
  // 8: proxies' records across restarts (store/proxy-records.ts): each proxy's last status and
  // departure, its connections (one per stream, newest kept) and their timeline events (a
  // connection's first ones, which its first-config breakdown reads, and its newest ones).
  `CREATE TABLE proxy_records (
     proxy_id TEXT PRIMARY KEY,
     status TEXT NOT NULL,
     departed_at REAL
   ) WITHOUT ROWID;
   CREATE TABLE proxy_connections (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     proxy_id TEXT NOT NULL,
     opened_at REAL NOT NULL
   );
   CREATE INDEX proxy_connections_by_proxy ON proxy_connections (proxy_id, id);
   CREATE TABLE proxy_events (
     connection_id INTEGER NOT NULL,
     number INTEGER NOT NULL,
     event TEXT NOT NULL,
     PRIMARY KEY (connection_id, number)
   ) WITHOUT ROWID;`,
  // 9: the status of Kuma's service-model resources (MeshService…), which the control plane writes
  // apart from spec and labels (meshservice/status-writes.ts); NULL for every other type.
  `ALTER TABLE resources ADD COLUMN status TEXT;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the schema up to `target` (the latest unless a test builds an older one to migrate from). */
export function migrate(db: Database.Database, target = SCHEMA_VERSION): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `database schema version ${current} is newer than this meshdesk (${SCHEMA_VERSION}); use a newer meshdesk or another data directory`,
    );
  }
  for (let version = current + 1; version <= target; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version - 1]!);
      db.pragma(`user_version = ${version}`);
    })();
  }
}
