// The Services view's answer for the generation bench's mesh (100 services, 50 policies, 151
// proxies: 51 clients with an outbound to every service, so 5,100 edges), from a fresh MeshContext
// each time (what `GET /_services` costs after a change), mTLS off and on (the permission matrix).
import { deepFreeze } from '../../src/shared/deep-freeze.js';
import { servicesView } from '../../src/main/api/services-view.js';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { median } from '../../tools/load/stats.js';
import type { BenchOptions, BenchRow } from '../measure.js';
import { benchPolicies, meshWithServices } from './generation.js';

const MTLS = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' as const }] };

export async function services(options: BenchOptions): Promise<BenchRow[]> {
  const { context, dataplanes } = meshWithServices(100, benchPolicies(50));
  const frozen = dataplanes.map((dataplane) => deepFreeze(structuredClone(dataplane)));
  const rounds = options.quick ? 3 : 9;
  const rows: BenchRow[] = [];
  for (const mtls of [false, true]) {
    const mesh = mtls ? { ...context.mesh, spec: { ...context.mesh.spec, mtls: MTLS } } : context.mesh;
    const samples: number[] = [];
    let edges = 0;
    for (let round = 0; round < rounds; round++) {
      const fresh = buildMeshContext(mesh, frozen, { policies: context.policies });
      const started = performance.now();
      edges = servicesView(fresh, () => undefined).services.reduce((sum, service) => sum + service.callers.length, 0);
      samples.push(performance.now() - started);
    }
    rows.push({ benchmark: `services view, 100 services, 50 policies, 151 proxies, mTLS ${mtls ? 'on' : 'off'}`, value: median(samples), unit: 'ms', note: `${edges} edges` });
  }
  return rows;
}
