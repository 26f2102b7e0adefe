import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCore } from '../../src/main/core.js';
import { medianMicros, type BenchRow } from '../measure.js';

/** The cached manager's reason to exist: a hit must be much cheaper than a store read. */
export async function cachedReads(): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meshdesk-bench-'));
  const core = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
  try {
    core.settings.update({ 'store.cache.expirationTime': '1h' });
    for (let index = 0; index < 100; index++) {
      await core.manager.create({
        type: 'Dataplane',
        mesh: 'default',
        name: `dp-${index}`,
        labels: {},
        spec: {
          networking: {
            address: '127.0.0.1',
            inbound: [{ port: 20000 + index, tags: { 'kuma.io/service': `svc-${index % 10}` } }],
          },
        },
      });
    }
    const key = { mesh: 'default', name: 'dp-42' };
    const uncachedGet = await medianMicros(() => core.manager.get('Dataplane', key));
    const cachedGet = await medianMicros(() => core.cachedManager.get('Dataplane', key));
    const uncachedList = await medianMicros(() => core.manager.list('Dataplane', { mesh: 'default' }), { batch: 100 });
    const cachedList = await medianMicros(() => core.cachedManager.list('Dataplane', { mesh: 'default' }), { batch: 100 });
    return [
      { benchmark: 'get Dataplane, uncached (SQLite)', value: uncachedGet, unit: 'µs' },
      { benchmark: 'get Dataplane, cached hit', value: cachedGet, unit: 'µs' },
      { benchmark: 'get: uncached / cached', value: uncachedGet / cachedGet, unit: '×' },
      { benchmark: 'list 100 Dataplanes, uncached (SQLite)', value: uncachedList, unit: 'µs' },
      { benchmark: 'list 100 Dataplanes, cached hit', value: cachedList, unit: 'µs' },
      { benchmark: 'list: uncached / cached', value: uncachedList / cachedList, unit: '×' },
    ];
  } finally {
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
