import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../../src/main/core.js';

export interface StoredResource {
  type: string;
  mesh: string;
  name: string;
  version: number;
  labels: Record<string, string>;
}

/** What a data directory holds, read straight from SQLite, not through meshdesk. */
export interface DatabaseContents {
  integrity: string;
  resources: Map<string, StoredResource>;
  settings: Map<string, unknown>;
}

export function resourceId(type: string, mesh: string, name: string): string {
  return `${type}/${mesh}/${name}`;
}

/**
 * Reads a copy of the database, its WAL and shared-memory files as the crash left them, so that
 * the check neither recovers nor checkpoints the original: the restarted control plane must do
 * that itself.
 */
export function inspectCrashedDatabase(dataDir: string): DatabaseContents {
  const scratch = mkdtempSync(join(tmpdir(), 'meshdesk-check-'));
  try {
    for (const suffix of ['', '-wal', '-shm']) {
      const file = join(dataDir, DATABASE_FILE + suffix);
      if (existsSync(file)) copyFileSync(file, join(scratch, DATABASE_FILE + suffix));
    }
    return inspectDatabase(join(scratch, DATABASE_FILE));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export function inspectDatabase(file: string): DatabaseContents {
  const db = new Database(file);
  try {
    const integrity = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((row) => row.integrity_check).join('; ');
    const resources = new Map<string, StoredResource>();
    const settings = new Map<string, unknown>();
    // Killed before its first migration committed: a database with no tables yet, and nothing acknowledged.
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'resources'").get()) return { integrity, resources, settings };
    const rows = db.prepare('SELECT type, mesh, name, version, labels FROM resources').all() as Array<Omit<StoredResource, 'labels'> & { labels: string }>;
    for (const row of rows) resources.set(resourceId(row.type, row.mesh, row.name), { ...row, labels: JSON.parse(row.labels) as Record<string, string> });
    for (const row of db.prepare('SELECT name, value FROM settings').all() as Array<{ name: string; value: string }>) {
      settings.set(row.name, JSON.parse(row.value));
    }
    return { integrity, resources, settings };
  } finally {
    db.close();
  }
}
