import { describe, expect, it } from 'vitest';
import type { ResourceInput } from '../../shared/resources.js';
import { tempDatabase } from '../../../test/support/temp-database.js';
import { ResourceAlreadyExistsError } from './errors.js';
import { GroupCommit, WRITES_PER_GROUP } from './group-commit.js';
import { ResourceStore } from './resource-store.js';

function mesh(name: string): ResourceInput<'Mesh'> {
  return { type: 'Mesh', mesh: '', name, labels: {}, spec: {} };
}

/** A store on a fresh file and a GroupCommit that counts the transactions it really commits. */
function setUp() {
  const { open } = tempDatabase();
  const db = open();
  const store = new ResourceStore(db);
  const counted = { commits: 0 };
  const commits = new GroupCommit((fn) => {
    if (!db.inTransaction) counted.commits++;
    return store.transaction(fn);
  });
  return { db, store, commits, counted };
}

describe('GroupCommit', () => {
  it('commits the writes of one turn in one transaction, each committed once its promise resolves', async () => {
    const { db, store, commits, counted } = setUp();

    const names = Array.from({ length: 10 }, (_, index) => `mesh-${index}`);
    const written = names.map((name) =>
      commits.run(() => store.create(mesh(name))).then((created) => {
        expect(db.inTransaction).toBe(false);
        expect(store.find({ type: 'Mesh', mesh: '', name: created.meta.name })).toEqual(created);
        return created.meta.name;
      }),
    );

    expect(await Promise.all(written)).toEqual(names);
    expect(counted.commits).toBe(1);
  });

  it('rolls back and rejects only the write that failed', async () => {
    const { store, commits } = setUp();
    store.create(mesh('taken'));

    const results = await Promise.allSettled([
      commits.run(() => store.create(mesh('first'))),
      commits.run(() => {
        store.create(mesh('half-written'));
        return store.create(mesh('taken'));
      }),
      commits.run(() => store.create(mesh('last'))),
    ]);

    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(ResourceAlreadyExistsError);
    expect(store.list('Mesh').map((each) => each.meta.name)).toEqual(['first', 'last', 'taken']);
  });

  it('splits a storm into bounded groups, in order', async () => {
    const { store, commits, counted } = setUp();

    const created = await Promise.all(
      Array.from({ length: 250 }, (_, index) => commits.run(() => store.create(mesh(`mesh-${String(index).padStart(3, '0')}`)))),
    );

    expect(counted.commits).toBe(Math.ceil(250 / WRITES_PER_GROUP));
    expect(created.map((each) => each.meta.name)).toEqual(store.list('Mesh').map((each) => each.meta.name));
  });

  it('rejects the whole group when the commit itself cannot happen', async () => {
    const { db, store, commits } = setUp();

    const writes = [commits.run(() => store.create(mesh('a'))), commits.run(() => store.create(mesh('b')))];
    db.close();

    for (const write of writes) await expect(write).rejects.toThrow(/database connection is not open/);
  });
});
