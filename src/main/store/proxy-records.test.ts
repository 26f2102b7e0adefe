import { describe, expect, it } from 'vitest';
import { eventually } from '../../../test/support/eventually.js';
import { tempDatabase } from '../../../test/support/temp-database.js';
import type { Db } from './database.js';
import type { ProxyStatus } from '../../shared/api-types.js';
import type { ProxyEventBody } from '../../shared/proxy-events.js';
import { ProxyRecords, type ProxyRecordBounds } from './proxy-records.js';

const SMALL: ProxyRecordBounds = { firstEventsPerConnection: 3, newestEventsPerConnection: 2, connectionsPerProxy: 2, connectionsTotal: 3 };

const opened = (at: number, streamId = at): ProxyEventBody => ({ kind: 'stream-opened', at, streamId, cacheExpirationMs: 1000 });
const tick = (at: number): ProxyEventBody => ({ kind: 'tick', at, result: 'generated', durationMs: 0.1 });

function status(proxyId: string, since: number): ProxyStatus {
  return {
    proxyId,
    online: false,
    state: 'offline',
    since,
    connections: 1,
    stream: { id: 1, peer: '127.0.0.1:1', openedAt: since - 1 },
    protocol: 'sotw',
    types: [],
  };
}

/**
 * What the next start reads: a fresh ProxyRecords over what is committed. On the writer's own
 * connection, since the database is held by one connection at a time (store/database.ts).
 */
function reloaded(db: Db) {
  const records = new ProxyRecords(db, { bounds: SMALL });
  const stored = records.load();
  records.close();
  return stored;
}

describe('ProxyRecords', () => {
  it("keeps a connection's first events and its newest ones, dropping those in between oldest first", () => {
    const database = tempDatabase();
    const db = database.open();
    const records = new ProxyRecords(db, { bounds: SMALL });
    records.event('default.web', opened(0));
    for (let at = 1; at <= 9; at++) records.event('default.web', tick(at));
    records.event('default.web', { kind: 'tick', at: 10, result: 'skip', durationMs: 0.1 }); // not worth a write
    records.close();

    const [web] = reloaded(db);
    expect(web!.connections.map((connection) => connection.events.map((event) => event.at))).toEqual([[0, 1, 2, 8, 9]]);
    expect(web!.connections[0]!.openedAt).toBe(0);
  });

  it("keeps a proxy's newest connections, and the newest connections of all proxies within the total", () => {
    const database = tempDatabase();
    const db = database.open();
    const records = new ProxyRecords(db, { bounds: SMALL });
    for (const at of [10, 20, 30]) records.event('default.web', opened(at));
    records.flush();
    expect(reloaded(db).find((proxy) => proxy.proxyId === 'default.web')!.connections.map((each) => each.openedAt)).toEqual([20, 30]);

    for (const at of [40, 50]) records.event('default.api', opened(at));
    records.close();
    const stored = new Map(reloaded(db).map((proxy) => [proxy.proxyId, proxy.connections.map((each) => each.openedAt)]));
    // Four connections over a total of three: the oldest of any proxy went.
    expect(stored).toEqual(new Map([['default.web', [30]], ['default.api', [40, 50]]]));
  });

  it('stores the latest status and the departure, and forgets all of a proxy at once', () => {
    const database = tempDatabase();
    const db = database.open();
    const records = new ProxyRecords(db, { bounds: SMALL });
    records.status(status('default.ghost', 5));
    records.status({ ...status('default.ghost', 7), state: 'refused' });
    records.departed('default.ghost', 8);
    records.event('default.ghost', opened(1));
    records.departed('default.back', 3);
    records.departed('default.back', null);
    records.status(status('default.gone', 1));
    records.event('default.gone', opened(2));
    records.forget('default.gone');
    records.close();

    const stored = new Map(reloaded(db).map((proxy) => [proxy.proxyId, proxy]));
    expect(stored.get('default.ghost')).toMatchObject({ status: { state: 'refused', since: 7 }, departedAt: 8 });
    expect(stored.get('default.back')?.departedAt).toBeUndefined();
    expect(stored.has('default.gone')).toBe(false);
  });

  it('writes what is queued by itself, without a close: a crash loses at most the last interval', async () => {
    const database = tempDatabase();
    const db = database.open();
    const records = new ProxyRecords(db, { bounds: SMALL, flushEveryMs: 20 });
    records.event('default.web', opened(1));
    records.event('default.web', tick(2));
    const reader = new ProxyRecords(db, { bounds: SMALL });
    await eventually(() => expect(reader.load().map((proxy) => proxy.connections[0]?.events.length)).toEqual([2]));
    records.close();
    reader.close();
  });
});
