import { describe, expect, it, onTestFinished } from 'vitest';
import type { ResourceInput } from '../../shared/resources.js';
import { tempDatabase } from '../../../test/support/temp-database.js';
import { ResourceAlreadyExistsError, StorageFaultError } from './errors.js';
import { eventually } from '../../../test/support/eventually.js';
import { GroupCommit, WRITES_PER_GROUP, type GroupCommitOptions } from './group-commit.js';
import { ResourceStore } from './resource-store.js';

function mesh(name: string): ResourceInput<'Mesh'> {
  return { type: 'Mesh', mesh: '', name, labels: {}, spec: {} };
}

/** A store on a fresh file, a second connection to read it, and a GroupCommit that counts the transactions it really commits. */
function setUp(options: GroupCommitOptions = {}) {
  const { open } = tempDatabase();
  const db = open();
  const store = new ResourceStore(db);
  const observerDb = open();
  const observer = new ResourceStore(observerDb);
  const counted = { commits: 0 };
  const commits = new GroupCommit((fn) => {
    if (!db.inTransaction) counted.commits++;
    return store.transaction(fn);
  }, options);
  return { db, store, observer, observerDb, commits, counted };
}

/** Counts event-loop turns with a 1 ms interval: it only ticks while nothing holds the loop. */
function loopTurns(): { readonly count: number } {
  const turns = { count: 0 };
  const timer = setInterval(() => turns.count++, 1);
  onTestFinished(() => clearInterval(timer));
  return turns;
}

function settled(promise: Promise<unknown>): () => boolean {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  return () => done;
}

describe('GroupCommit', () => {
  it('commits the writes of one turn in one transaction, each visible to other connections once its promise resolves', async () => {
    const { store, observer, commits, counted } = setUp();

    const names = Array.from({ length: 10 }, (_, index) => `mesh-${index}`);
    const written = names.map((name) =>
      commits.run(() => store.create(mesh(name))).then((created) => {
        expect(observer.find({ type: 'Mesh', mesh: '', name: created.meta.name })).toEqual(created);
        return created.meta.name;
      }),
    );

    expect(await Promise.all(written)).toEqual(names);
    expect(counted.commits).toBe(1);
  });

  it('rolls back and rejects only the write that failed', async () => {
    const { store, observer, commits } = setUp();
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
    expect(observer.list('Mesh').map((each) => each.meta.name)).toEqual(['first', 'last', 'taken']);
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

  it("waits for another process's write lock without holding the event loop, and commits once it is released", async () => {
    const { store, observer, observerDb, commits } = setUp();
    observerDb.exec('BEGIN IMMEDIATE'); // what a sqlite3 shell or a backup tool does

    const write = commits.run(() => store.create(mesh('waited')));
    const done = settled(write);
    const turns = loopTurns();
    await eventually(() => expect(turns.count).toBeGreaterThanOrEqual(50));
    expect(done()).toBe(false);

    observerDb.exec('COMMIT');
    expect((await write).meta.name).toBe('waited');
    expect(observer.find({ type: 'Mesh', mesh: '', name: 'waited' })).toBeDefined();
  });

  it('fails a write still waiting for the lock at its deadline, saying the database is locked by another process', async () => {
    const { store, observer, observerDb, commits } = setUp({ lockWaitDeadlineMs: 50 });
    observerDb.exec('BEGIN EXCLUSIVE');

    const write = commits.run(() => store.create(mesh('never')));

    await expect(write).rejects.toThrow(StorageFaultError);
    await expect(write).rejects.toMatchObject({ kind: 'locked', message: expect.stringMatching(/locked by another process/) });
    observerDb.exec('ROLLBACK');
    expect(observer.find({ type: 'Mesh', mesh: '', name: 'never' })).toBeUndefined();
    // The queue is not stuck: the next write lands.
    expect((await commits.run(() => store.create(mesh('later')))).meta.name).toBe('later');
  });
});
