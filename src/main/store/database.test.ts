import { openSync, statSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.js';
import { openDatabase } from './database.js';
import { StorageFaultError } from './errors.js';
import { ResourceStore } from './resource-store.js';

/** A real database with enough rows to span many pages, closed (checkpointed) so that every page is in the file. */
function databaseWithRows(file: string): void {
  const db = openDatabase(file);
  const store = new ResourceStore(db);
  store.transaction(() => {
    for (let index = 0; index < 500; index++) {
      store.create({ type: 'Mesh', mesh: '', name: `mesh-${index}`, labels: { padding: 'x'.repeat(200) }, spec: {} });
    }
  });
  db.close();
}

/** Overwrites whole pages in the middle of the file with garbage, as a failing disk or a stray write would. */
function damagePages(file: string, pages: number[]): void {
  const pageSize = 4096;
  const fd = openSync(file, 'r+');
  for (const page of pages) writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, page * pageSize);
  closeSync(fd);
}

describe('openDatabase', () => {
  it('refuses a file with damaged pages, naming the file, what SQLite found and what to do', () => {
    const file = join(tempDir(), 'meshdesk.db');
    databaseWithRows(file);
    expect(statSync(file).size).toBeGreaterThan(20 * 4096);
    damagePages(file, [12, 20]);

    let error: unknown;
    try {
      openDatabase(file).close();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StorageFaultError);
    expect(error).toMatchObject({ kind: 'corrupt' });
    const message = (error as Error).message;
    expect(message).toContain(`database ${file} is corrupted`);
    expect(message).toMatch(/is corrupted \((database disk image is malformed|.*page \d+.*)\)/); // SQLite's finding
    expect(message).toMatch(/restore the file from a backup, or move it .* aside/);
  });

  it('refuses a file that is not a database at all, naming it', () => {
    const file = join(tempDir(), 'meshdesk.db');
    writeFileSync(file, Buffer.alloc(8192, 0x41));

    expect(() => openDatabase(file)).toThrow(StorageFaultError);
    expect(() => openDatabase(file)).toThrow(`database ${file} is corrupted (file is not a database)`);
  });

  it('opens an intact database as it was', () => {
    const file = join(tempDir(), 'meshdesk.db');
    databaseWithRows(file);
    const db = openDatabase(file);
    expect(new ResourceStore(db).list('Mesh')).toHaveLength(500);
    db.close();
  });
});
