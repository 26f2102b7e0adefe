import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPolicyNow } from '../../src/main/api/policy-warnings.js';
import { startCore } from '../../src/main/core.js';
import type { PolicyResource } from '../../src/main/policies/core/policy.js';
import { medianMicros, type BenchOptions, type BenchRow } from '../measure.js';

/**
 * What a policy PUT's warnings cost (policies/warnings/, api/policy-warnings.ts): a MeshContext of
 * the mesh from uncached reads, then the generator's matching per Dataplane, on every policy write.
 * Measured at two mesh sizes, with a policy whose targetRef selects nothing (every Dataplane is tried).
 */
export async function policyWarnings({ quick }: BenchOptions): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meshdesk-bench-'));
  const core = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
  const rows: BenchRow[] = [];
  try {
    const policy = {
      type: 'MeshTimeout',
      meta: { mesh: 'default', name: 'nobody', version: 1, labels: {}, creationTime: '', modificationTime: '' },
      spec: { targetRef: { kind: 'Dataplane', labels: { app: 'nobody' } }, to: [{ targetRef: { kind: 'MeshService', name: 'svc-1' }, default: { connectionTimeout: '1s' } }] },
    } as unknown as PolicyResource;
    let created = 0;
    for (const size of quick ? [100, 1000] : [100, 1000, 5000]) {
      for (; created < size; created++) {
        await core.manager.create({
          type: 'Dataplane',
          mesh: 'default',
          name: `dp-${created}`,
          labels: {},
          spec: { networking: { address: '127.0.0.1', inbound: [{ port: 20000 + created, tags: { 'kuma.io/service': `svc-${created % 50}` } }] } },
        });
      }
      const micros = await medianMicros(() => checkPolicyNow(core.manager, policy), { batch: 3, batches: quick ? 5 : 11 });
      rows.push({ benchmark: `policy PUT warnings, mesh of ${size} Dataplanes`, value: micros / 1000, unit: 'ms' });
    }
    return rows;
  } finally {
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
