import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';
import type { ProxyStatus } from '../../shared/api-types.js';
import type { ProxyEventBody } from '../../shared/proxy-events.js';
import { asStorageFault } from './errors.js';

/**
 * How much of proxies' stories the database keeps, so that the records of a crash-looping or
 * hostile client cannot grow it without end. Oldest goes first at every level.
 */
export interface ProxyRecordBounds {
  /** A connection's first events, never dropped: its first-config breakdown reads them. */
  firstEventsPerConnection: number;
  /** Beyond the first ones, a connection's newest events kept (a skip tick a second pushes older ones out). */
  newestEventsPerConnection: number;
  /** A proxy's newest connections kept (its latest and the earlier ones the first-config view lists). */
  connectionsPerProxy: number;
  /** Connections kept over every proxy; past it, the oldest connection of any proxy goes. */
  connectionsTotal: number;
}

/**
 * 100 + 100 events per connection, 11 connections per proxy (the latest and the 10 earlier ones the
 * timeline keeps), 2,000 connections in all: at most 400,000 event rows (~60 MB at the largest
 * events), while a laptop's few dozen proxies keep their whole recent story.
 */
export const PROXY_RECORD_BOUNDS: ProxyRecordBounds = {
  firstEventsPerConnection: 100,
  newestEventsPerConnection: 100,
  connectionsPerProxy: 11,
  connectionsTotal: 2_000,
};

/** How often queued records are written: a crash loses at most this much of them. */
export const RECORDS_FLUSH_EVERY_MS = 1_000;

/**
 * Records written per transaction and event-loop turn: a storm queues ten thousand events in a
 * second, and one transaction for all of them would hold every ADS stream for its length (a few
 * µs per event, far more on a loaded machine); the rest follow in the next turns.
 */
export const RECORDS_PER_TRANSACTION = 500;

/**
 * Writes waiting at most (a storm of a thousand proxies makes ~10 events each in its first
 * second); beyond, the oldest are dropped and counted.
 */
export const MAX_QUEUED_RECORDS = 50_000;

/** One connection of a proxy as stored: its events in recording order, first ones first. */
export interface StoredConnection {
  openedAt: number;
  events: ProxyEventBody[];
}

/** What the database holds about one proxy from an earlier run. */
export interface StoredProxy {
  proxyId: string;
  /** Its last status written; none when only events were (a write lost in a crash). */
  status?: ProxyStatus;
  /** When it departed, epoch ms; none while it had not. */
  departedAt?: number;
  /** Oldest first. */
  connections: StoredConnection[];
}

type RecordWrite =
  | { event: ProxyEventBody; proxyId: string }
  | { status: ProxyStatus }
  | { departed: string; at: number | null }
  | { forget: string };

export interface ProxyRecordsOptions {
  bounds?: ProxyRecordBounds;
  flushEveryMs?: number;
}

/**
 * Proxies' records across restarts: each proxy's last status and departure, and its connections'
 * timeline events, bounded (PROXY_RECORD_BOUNDS). Writes are queued and written together once per
 * `flushEveryMs`, RECORDS_PER_TRANSACTION per transaction and event-loop turn, so the ADS path never
 * waits for SQLite (a few fsyncs a second in all instead of one per event) and a crash loses at most
 * the last second of them. They never share a transaction with the manager's writes, so nothing
 * here can cost a resource.
 *
 * A record is not the product: a write the database refuses is logged and dropped (as snapshot
 * history's would be after its retries), serving config goes on.
 */
export class ProxyRecords {
  readonly #db: Db;
  readonly #bounds: ProxyRecordBounds;
  readonly #inTransaction: (write: () => void) => void;
  readonly #timer: NodeJS.Timeout;
  readonly #upsertStatus: Statement<[{ proxy_id: string; status: string }]>;
  readonly #setDeparted: Statement<[{ proxy_id: string; departed_at: number | null }]>;
  readonly #insertConnection: Statement<[{ proxy_id: string; opened_at: number }], { id: number }>;
  readonly #insertEvent: Statement<[{ connection_id: number; number: number; event: string }]>;
  readonly #dropEvent: Statement<[{ connection_id: number; number: number }]>;
  readonly #connectionsBeyond: Statement<[{ proxy_id: string; keep: number }], number>;
  readonly #oldestConnections: Statement<[{ excess: number }], number>;
  readonly #countConnections: Statement<[], number>;
  readonly #dropConnection: Statement<[number]>;
  readonly #dropConnectionEvents: Statement<[number]>;
  readonly #proxyConnections: Statement<[string], number>;
  readonly #dropRecord: Statement<[string]>;
  #queued: RecordWrite[] = [];
  /** Set while queued records are being written turn by turn. */
  #writing = false;
  /** The connection each proxy's events of this run go to, with its next event number. */
  readonly #current = new Map<string, { id: number; next: number }>();
  /** `#current` the other way: the proxy whose events of this run go to a connection. */
  readonly #currentOwner = new Map<number, string>();
  #failing = false;

  constructor(db: Db, options: ProxyRecordsOptions = {}) {
    this.#db = db;
    this.#bounds = options.bounds ?? PROXY_RECORD_BOUNDS;
    const transaction = db.transaction((write: () => void) => write());
    this.#inTransaction = (write) => transaction(write);
    this.#upsertStatus = db.prepare(
      `INSERT INTO proxy_records (proxy_id, status) VALUES (@proxy_id, @status)
       ON CONFLICT (proxy_id) DO UPDATE SET status = excluded.status`,
    );
    this.#setDeparted = db.prepare(
      `INSERT INTO proxy_records (proxy_id, status, departed_at) VALUES (@proxy_id, 'null', @departed_at)
       ON CONFLICT (proxy_id) DO UPDATE SET departed_at = excluded.departed_at`,
    );
    this.#insertConnection = db.prepare('INSERT INTO proxy_connections (proxy_id, opened_at) VALUES (@proxy_id, @opened_at) RETURNING id');
    this.#insertEvent = db.prepare('INSERT INTO proxy_events (connection_id, number, event) VALUES (@connection_id, @number, @event)');
    this.#dropEvent = db.prepare('DELETE FROM proxy_events WHERE connection_id = @connection_id AND number = @number');
    this.#connectionsBeyond = db
      .prepare<[{ proxy_id: string; keep: number }], number>(
        'SELECT id FROM proxy_connections WHERE proxy_id = @proxy_id ORDER BY id DESC LIMIT -1 OFFSET @keep',
      )
      .pluck();
    this.#oldestConnections = db.prepare<[{ excess: number }], number>('SELECT id FROM proxy_connections ORDER BY id LIMIT @excess').pluck();
    this.#countConnections = db.prepare<[], number>('SELECT count(*) FROM proxy_connections').pluck();
    this.#dropConnection = db.prepare('DELETE FROM proxy_connections WHERE id = ?');
    this.#dropConnectionEvents = db.prepare('DELETE FROM proxy_events WHERE connection_id = ?');
    this.#proxyConnections = db.prepare<[string], number>('SELECT id FROM proxy_connections WHERE proxy_id = ?').pluck();
    this.#dropRecord = db.prepare('DELETE FROM proxy_records WHERE proxy_id = ?');
    this.#timer = setInterval(() => this.#writeInTurns(), options.flushEveryMs ?? RECORDS_FLUSH_EVERY_MS).unref();
  }

  /** Every proxy stored by earlier runs, with its connections oldest first. Read once, at start, before anything is queued. */
  load(): StoredProxy[] {
    const proxies = new Map<string, StoredProxy>();
    const proxy = (proxyId: string) => {
      let stored = proxies.get(proxyId);
      if (!stored) proxies.set(proxyId, (stored = { proxyId, connections: [] }));
      return stored;
    };
    const records = this.#db.prepare('SELECT proxy_id, status, departed_at FROM proxy_records').all() as {
      proxy_id: string;
      status: string;
      departed_at: number | null;
    }[];
    for (const { proxy_id, status, departed_at } of records) {
      const stored = proxy(proxy_id);
      const parsed = JSON.parse(status) as ProxyStatus | null;
      if (parsed) stored.status = parsed;
      if (departed_at !== null) stored.departedAt = departed_at;
    }
    const byId = new Map<number, StoredConnection>();
    const connections = this.#db.prepare('SELECT id, proxy_id, opened_at FROM proxy_connections ORDER BY id').all() as {
      id: number;
      proxy_id: string;
      opened_at: number;
    }[];
    for (const { id, proxy_id, opened_at } of connections) {
      const connection: StoredConnection = { openedAt: opened_at, events: [] };
      byId.set(id, connection);
      proxy(proxy_id).connections.push(connection);
    }
    const events = this.#db.prepare('SELECT connection_id, event FROM proxy_events ORDER BY connection_id, number').all() as {
      connection_id: number;
      event: string;
    }[];
    for (const { connection_id, event } of events) byId.get(connection_id)?.events.push(JSON.parse(event) as ProxyEventBody);
    return [...proxies.values()];
  }

  /**
   * Queues an event of the proxy's timeline: a `stream-opened` starts a new connection. A skip tick
   * (nothing changed, once a second per proxy) is not stored: an idle mesh then writes nothing, and
   * a laptop's disk is not woken every second for what the timeline hides by default.
   */
  event(proxyId: string, event: ProxyEventBody): void {
    if (event.kind === 'tick' && event.result === 'skip') return;
    this.#enqueue({ proxyId, event });
  }

  /** Queues the proxy's status as it is now. */
  status(status: ProxyStatus): void {
    this.#enqueue({ status });
  }

  /** Queues the proxy's departure (`at`), or its return (null). */
  departed(proxyId: string, at: number | null): void {
    this.#enqueue({ departed: proxyId, at });
  }

  /** Queues dropping everything stored about the proxy, once its retention is over. */
  forget(proxyId: string): void {
    this.#enqueue({ forget: proxyId });
  }

  /**
   * Writes what is queued, up to `limit` records, in one transaction; nothing once the database is
   * closed. Never throws.
   */
  flush(limit = Number.POSITIVE_INFINITY): void {
    if (this.#queued.length === 0 || !this.#db.open) return;
    const batch = this.#queued.splice(0, limit);
    try {
      this.#inTransaction(() => {
        for (const write of batch) this.#write(write);
        this.#keepTotal();
      });
    } catch (error) {
      // The transaction was rolled back: the connections it began are not there.
      this.#current.clear();
      this.#currentOwner.clear();
      if (!this.#failing) {
        const fault = asStorageFault(error);
        console.error(`proxy records: cannot write (${fault instanceof Error ? fault.message : String(fault)}); serving config goes on`);
      }
      this.#failing = true;
      return;
    }
    this.#failing = false;
  }

  /** A last flush; the timer stops. */
  close(): void {
    clearInterval(this.#timer);
    this.flush();
  }

  /** RECORDS_PER_TRANSACTION now, the rest in the next turns, so that streams are served in between. */
  #writeInTurns(): void {
    if (this.#writing) return;
    this.#writing = true;
    const next = () => {
      this.flush(RECORDS_PER_TRANSACTION);
      if (this.#queued.length > 0 && this.#db.open) setImmediate(next);
      else this.#writing = false;
    };
    next();
  }

  #enqueue(write: RecordWrite): void {
    this.#queued.push(write);
    if (this.#queued.length > MAX_QUEUED_RECORDS) this.#queued.splice(0, this.#queued.length - MAX_QUEUED_RECORDS);
  }

  #write(write: RecordWrite): void {
    if ('event' in write) this.#writeEvent(write.proxyId, write.event);
    else if ('status' in write) this.#upsertStatus.run({ proxy_id: write.status.proxyId, status: JSON.stringify(write.status) });
    else if ('departed' in write) this.#setDeparted.run({ proxy_id: write.departed, departed_at: write.at });
    else {
      for (const id of this.#proxyConnections.all(write.forget)) this.#dropConnectionRows(id);
      this.#dropRecord.run(write.forget);
    }
  }

  #writeEvent(proxyId: string, event: ProxyEventBody): void {
    let connection = this.#current.get(proxyId);
    if (!connection || event.kind === 'stream-opened') {
      connection = { id: this.#insertConnection.get({ proxy_id: proxyId, opened_at: event.at })!.id, next: 0 };
      const previous = this.#current.get(proxyId);
      if (previous) this.#currentOwner.delete(previous.id);
      this.#current.set(proxyId, connection);
      this.#currentOwner.set(connection.id, proxyId);
      const { connectionsPerProxy } = this.#bounds;
      for (const id of this.#connectionsBeyond.all({ proxy_id: proxyId, keep: connectionsPerProxy })) this.#dropConnectionRows(id);
    }
    const number = connection.next++;
    this.#insertEvent.run({ connection_id: connection.id, number, event: JSON.stringify(event) });
    // Keeps numbers [0, first) and the newest `newest`: the one that just left the newest goes.
    const { firstEventsPerConnection: first, newestEventsPerConnection: newest } = this.#bounds;
    const leaving = number - newest;
    if (leaving >= first) this.#dropEvent.run({ connection_id: connection.id, number: leaving });
  }

  #keepTotal(): void {
    const excess = this.#countConnections.get()! - this.#bounds.connectionsTotal;
    if (excess <= 0) return;
    for (const id of this.#oldestConnections.all({ excess })) this.#dropConnectionRows(id);
  }

  #dropConnectionRows(id: number): void {
    this.#dropConnectionEvents.run(id);
    this.#dropConnection.run(id);
    const owner = this.#currentOwner.get(id);
    if (owner === undefined) return;
    this.#currentOwner.delete(id);
    this.#current.delete(owner);
  }
}
