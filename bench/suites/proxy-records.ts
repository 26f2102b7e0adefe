import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/main/store/database.js';
import { ProxyRecords, RECORDS_PER_TRANSACTION } from '../../src/main/store/proxy-records.js';
import type { ProxyEventBody } from '../../src/shared/proxy-events.js';
import { median } from '../../tools/load/stats.js';
import type { BenchOptions, BenchRow } from '../measure.js';

const PROXIES = 1000;
const CLUSTERS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';

/**
 * What storing proxies' records costs the event loop (store/proxy-records.ts): a storm's second
 * (1,000 proxies connecting, 10 events each) and a busy steady second (one stored event per proxy,
 * each connection past its bound, so each also drops one), written as the timer writes them:
 * RECORDS_PER_TRANSACTION per transaction and turn. The longest turn is what an ADS stream may wait.
 */
export async function proxyRecords(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'meshdesk-bench-'));
  const db = openDatabase(join(dir, 'meshdesk.db'));
  const records = new ProxyRecords(db, { flushEveryMs: 3_600_000 });
  const rounds = options.quick ? 3 : 8;
  const event = (index: number): ProxyEventBody => ({ kind: 'ack', at: Date.now(), typeUrl: CLUSTERS, version: 'abcdef012345', nonce: String(index) });
  /** Writes what is queued turn by turn: [total ms, longest turn ms]. */
  const writeAll = (): [number, number] => {
    const turns: number[] = [];
    for (;;) {
      const start = performance.now();
      records.flush(RECORDS_PER_TRANSACTION);
      const took = performance.now() - start;
      if (took < 0.05) break;
      turns.push(took);
    }
    return [turns.reduce((a, b) => a + b, 0), Math.max(...turns)];
  };
  try {
    const storm: Array<[number, number]> = [];
    for (let round = 0; round < rounds; round++) {
      for (let proxy = 0; proxy < PROXIES; proxy++) {
        records.event(`default.p${proxy}`, { kind: 'stream-opened', at: Date.now(), streamId: round * PROXIES + proxy, cacheExpirationMs: 1000 });
        for (let index = 0; index < 9; index++) records.event(`default.p${proxy}`, event(index));
      }
      storm.push(writeAll());
    }
    for (let proxy = 0; proxy < PROXIES; proxy++) for (let index = 0; index < 200; index++) records.event(`default.p${proxy}`, event(index));
    writeAll();
    const steady: Array<[number, number]> = [];
    for (let round = 0; round < rounds; round++) {
      for (let proxy = 0; proxy < PROXIES; proxy++) records.event(`default.p${proxy}`, event(round));
      steady.push(writeAll());
    }
    return [
      { benchmark: 'records: storm second (10,000 events), written in all', value: median(storm.map(([total]) => total)), unit: 'ms' },
      { benchmark: 'records: storm second, longest turn', value: median(storm.map(([, longest]) => longest)), unit: 'ms' },
      { benchmark: 'records: steady second (1,000 events), written in all', value: median(steady.map(([total]) => total)), unit: 'ms' },
      { benchmark: 'records: steady second, longest turn', value: median(steady.map(([, longest]) => longest)), unit: 'ms' },
    ];
  } finally {
    records.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
