import { format } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';
import { EventBus } from '../../events/event-bus.js';
import { ResourceManager } from '../../manager/resource-manager.js';
import type { Resource } from '../../../shared/resources.js';
import { openDatabase, type Db } from '../database.js';
import { asStorageFault, BrokenRowError } from '../errors.js';
import { ProxyRecords } from '../proxy-records.js';
import { ResourceStore } from '../resource-store.js';
import { settingsTable } from '../settings-table.js';
import { SnapshotHistory } from '../snapshot-history.js';
import { tokenTable } from '../token-table.js';
import type { CallMessage, FromWorker, LogLevel, NoticesMessage, StorageCalls, StorageNotices, StorageWorkerData, ToWorker } from './protocol.js';
import { serializeError } from './serialized-error.js';

/**
 * The storage worker: the only thread that touches the database. It owns the connection (which
 * holds the file's lock, see store/database.ts) and every store on it, and answers the main
 * thread's requests one at a time, so a slow disk stalls this thread and never the event loop
 * that serves ADS.
 */

type Handlers<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => R | Promise<R> : never };

const port = parentPort!;
const data = workerData as StorageWorkerData;

function post(message: FromWorker): void {
  port.postMessage(message);
}

for (const level of ['error', 'warn', 'info', 'log'] as const satisfies readonly LogLevel[]) {
  console[level] = (...args: unknown[]) => post({ kind: 'log', level, text: format(...args) });
}

function start(db: Db): void {
  const events = new EventBus();
  const store = new ResourceStore(db);
  const manager = new ResourceManager({ store, events });
  events.subscribe((event) => post({ kind: 'event', event }));
  const history = new SnapshotHistory(db, { onLost: (count, fault) => post({ kind: 'history-lost', count, fault }) });
  const records = new ProxyRecords(db);
  const settings = settingsTable(db);
  const tokens = tokenTable(db);

  const calls: Handlers<StorageCalls> = {
    'resources.get': (type, key) => manager.get(type, key) as Promise<Resource>,
    'resources.list': (type, options) => manager.list(type, options) as Promise<Resource[]>,
    'resources.storedOrBroken': (key) => {
      try {
        return store.find(key);
      } catch (error) {
        if (error instanceof BrokenRowError) return undefined;
        throw error;
      }
    },
    'resources.create': (input) => manager.create(input),
    'resources.update': (input) => manager.update(input),
    'resources.upsert': (input) => manager.upsert(input),
    'resources.writeAll': (inputs) => manager.writeAll(inputs),
    'resources.delete': (key, options) => manager.delete(key, options),
    'resources.writeStatuses': (writes) => manager.writeStatuses(writes),
    'resources.checkStored': () => manager.checkStoredResources(),
    'resources.ensureDefaultMesh': () => manager.ensureDefaultMesh(),
    'history.list': (proxyId) => history.list(proxyId),
    'history.get': (id) => history.get(id),
    'history.latest': (proxyId) => history.latest(proxyId),
    'history.storedBytes': (proxyId) => history.storedBytes(proxyId),
    'history.writeStatus': () => history.writeStatus(),
    'records.load': () => records.load(),
    'settings.rows': () => settings.rows(),
    'settings.save': (rows, modificationTime) => settings.save(rows, modificationTime),
    'tokens.all': () => tokens.all(),
    'tokens.put': (row) => tokens.put(row),
    'stall.hold': (signal) => {
      const words = new Int32Array(signal);
      Atomics.store(words, 1, 1);
      Atomics.notify(words, 1);
      Atomics.wait(words, 0, 0);
    },
    'faults.readOnly': (readOnly) => void db.pragma(`query_only = ${readOnly ? 'ON' : 'OFF'}`),
    close: async () => {
      // Calls sent before the close may still wait for their group's commit (GroupCommit).
      await Promise.allSettled(inFlight);
      history.close();
      records.close();
      db.close();
    },
  };
  const notices: Handlers<StorageNotices> = {
    'history.recordSoon': (snapshot) => history.recordSoon(snapshot),
    'history.deleteProxy': (proxyId) => history.deleteProxy(proxyId),
    'history.flush': () => history.flush(),
    'records.event': (proxyId, event) => records.event(proxyId, event),
    'records.status': (status) => records.status(status),
    'records.departed': (proxyId, at) => records.departed(proxyId, at),
    'records.forget': (proxyId) => records.forget(proxyId),
    'records.flush': () => records.flush(),
  };

  let brokenRowsSent = '[]';
  /** After every resource call: reads find broken rows, writes repair them. */
  const postBrokenRows = () => {
    const rows = manager.brokenRows();
    const text = JSON.stringify(rows);
    if (text === brokenRowsSent) return;
    brokenRowsSent = text;
    post({ kind: 'broken-rows', rows });
  };

  const inFlight = new Set<Promise<unknown>>();
  const call = ({ name, args }: Pick<CallMessage, 'name' | 'args'>): Promise<unknown> => {
    const answer = run(name, args);
    if (name !== 'close') {
      inFlight.add(answer);
      void answer.finally(() => inFlight.delete(answer)).catch(() => {});
    }
    return answer;
  };
  const run = async (name: CallMessage['name'], args: unknown[]): Promise<unknown> => {
    try {
      return await (calls[name] as (...args: unknown[]) => unknown)(...args);
    } catch (error) {
      // The fault named for the user, SQLite's error kept as its cause.
      throw asStorageFault(error);
    } finally {
      if (name.startsWith('resources.')) postBrokenRows();
    }
  };

  port.on('message', (message: ToWorker) => {
    if (message.kind === 'notices') return runNotices(message);
    call(message).then(
      (value) => post({ kind: 'reply', id: message.id, ok: true, value }),
      (error: unknown) => post({ kind: 'reply', id: message.id, ok: false, error: serializeError(error) }),
    );
  });

  function runNotices({ notices: batch }: NoticesMessage): void {
    for (const { name, args } of batch) {
      try {
        (notices[name] as (...args: unknown[]) => void)(...args);
      } catch (error) {
        // The stores' queued writes never throw; anything else is a bug, and must not end the worker.
        console.error(`storage worker: ${name} failed:`, error);
      }
    }
  }

  // Synchronous calls (see StorageClient.callSync): the main thread waits on the signal.
  const signal = new Int32Array(data.syncSignal);
  data.syncPort.on('message', (message: CallMessage) => {
    const answer = (reply: FromWorker) => {
      data.syncPort.postMessage(reply);
      Atomics.store(signal, 0, 1);
      Atomics.notify(signal, 0);
    };
    try {
      const value = (calls[message.name] as (...args: unknown[]) => unknown)(...message.args);
      answer({ kind: 'reply', id: message.id, ok: true, value });
    } catch (error) {
      answer({ kind: 'reply', id: message.id, ok: false, error: serializeError(asStorageFault(error)) });
    }
  });

  post({ kind: 'opened' });
}

/** The database, or undefined once the failure is posted (the worker then ends). */
function open(): Db | undefined {
  try {
    return openDatabase(data.file, { nativeBinding: data.nativeBinding });
  } catch (error) {
    post({ kind: 'open-failed', error: serializeError(error) });
    port.close();
    data.syncPort.close();
    return undefined;
  }
}

const db = open();
if (db) start(db);
