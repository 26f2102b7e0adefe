import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';
import { AcknowledgedWrites } from './support/acknowledged-writes.js';
import { headlessBundle } from '../support/headless-process.js';
import { ControlPlaneProcess } from './support/control-plane-process.js';
import { inspectCrashedDatabase } from './support/database-check.js';
import { LONG_RUN, seededRandom } from './support/seeded-random.js';
import { WriteStream } from './support/write-stream.js';

/**
 * Issue 7.1: SIGKILL the real headless control plane at random points while API writes and proxy
 * registrations stream in, restart it on the same data directory, and check after every kill that
 * SQLite's integrity check passes and that every acknowledged write is there (synchronous = FULL
 * in WAL mode: a commit is on disk before the API answers).
 *
 * Short run: 10 kills. `MESHDESK_LONG=1`: 200. `MESHDESK_SEED=<n>` replays a run.
 */
const KILLS = Number(process.env.MESHDESK_KILLS ?? (LONG_RUN ? 200 : 10));
/** Some kills land during startup (loading, opening the database, migrations, the default mesh), before anything listens. */
const STARTUP_KILL_CHANCE = 0.15;

describe('crash safety', () => {
  it(
    `keeps every acknowledged write and a sound database across ${KILLS} SIGKILLs at random points`,
    async () => {
      const bundle = await headlessBundle();
      const random = seededRandom();
      const dataDir = tempDir();
      const ledger = new AcknowledgedWrites();
      const started = Date.now();
      let startupKills = 0;
      let strategySaved = false;

      for (let kill = 1; kill <= KILLS; kill++) {
        const controlPlane = new ControlPlaneProcess(bundle, dataDir);
        // The first start too: a kill there can land in the migrations of a brand-new database.
        if (random.chance(STARTUP_KILL_CHANCE)) {
          await new Promise((resolve) => setTimeout(resolve, random.int(0, 1500)));
          startupKills += 1;
          await controlPlane.crash();
        } else {
          const { apiUrl, adsPort } = await controlPlane.ready;
          if (!strategySaved) {
            // Registrations answer without waiting a cache expiration; saved once, it must survive every crash.
            const response = await fetch(`${apiUrl}/settings`, { method: 'PUT', body: JSON.stringify({ 'xds.postCreateStrategy': 'invalidate' }) });
            expect(response.status).toBe(200);
            strategySaved = true;
          } else {
            // The restarted process serves what the last check found on disk.
            const settings = (await (await fetch(`${apiUrl}/settings`)).json()) as Record<string, unknown>;
            expect(settings['xds.postCreateStrategy']).toBe('invalidate');
          }
          const writes = new WriteStream({ apiUrl, adsPort, ledger, random });
          await new Promise((resolve) => setTimeout(resolve, random.int(10, 1000)));
          await controlPlane.crash();
          await writes.finished();
          expect(writes.unexpected).toEqual([]);
        }
        const stored = inspectCrashedDatabase(dataDir);
        expect(ledger.problems(stored), `after kill ${kill} (seed ${random.seed})`).toEqual([]);
        ledger.adopt(stored);
        if (strategySaved) expect(stored.settings.get('xds.postCreateStrategy')).toBe('invalidate');
      }

      console.log(
        `crash safety: ${KILLS} SIGKILLs (${startupKills} during startup); acknowledged and checked: ` +
          `${ledger.acknowledged.resources} resource PUTs, ${ledger.acknowledged.settings} settings PUTs, ` +
          `${ledger.acknowledged.registrations} proxy registrations; ` +
          `integrity ok after each; ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${random.seed}`,
      );
    },
    KILLS * 60_000, // bounds a hung run only: a start takes over 10 s on a saturated 2-core box
  );
});
