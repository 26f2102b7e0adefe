// The mesh analysis of the generation bench's mesh (100 services, 50 policies, 151 proxies: 100
// backends and 51 clients with an outbound to every service), from a fresh MeshContext each time:
// what `GET /_analysis` costs after a change, when nothing computed for the mesh can be reused.
import { deepFreeze } from '../../src/shared/deep-freeze.js';
import { analyzeMesh } from '../../src/main/analysis/analyze-mesh.js';
import { ANALYZERS } from '../../src/main/analysis/analyzers.js';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { median } from '../../tools/load/stats.js';
import type { BenchOptions, BenchRow } from '../measure.js';
import { benchPolicies, meshWithServices } from './generation.js';

export async function analysis(options: BenchOptions): Promise<BenchRow[]> {
  const { context, dataplanes } = meshWithServices(100, benchPolicies(50));
  // Frozen, as the cached manager hands resources out.
  const frozen = dataplanes.map((dataplane) => deepFreeze(structuredClone(dataplane)));
  const fresh = () => buildMeshContext(context.mesh, frozen, { policies: context.policies });
  const rounds = options.quick ? 3 : 9;
  const whole: number[] = [];
  const perAnalyzer = new Map<string, number[]>();
  let findings = 0;
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    findings = analyzeMesh(fresh()).findings.length;
    whole.push(performance.now() - started);
    for (const analyzer of ANALYZERS) {
      const each = fresh();
      const start = performance.now();
      analyzer.analyze(each);
      perAnalyzer.set(analyzer.code, [...(perAnalyzer.get(analyzer.code) ?? []), performance.now() - start]);
    }
  }
  return [
    { benchmark: 'analysis, 100 services, 50 policies, 151 proxies', value: median(whole), unit: 'ms', note: `${findings} findings; target ≤ 200 ms` },
    ...[...perAnalyzer].map(([code, samples]) => ({ benchmark: `analysis, same mesh, ${code} alone`, value: median(samples), unit: 'ms' })),
  ];
}
