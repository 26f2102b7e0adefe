import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '../../src/main/events/event-bus.js';
import { ResourceManager } from '../../src/main/manager/resource-manager.js';
import { ServiceModelController } from '../../src/main/meshservice/controller.js';
import { generateMeshServices } from '../../src/main/meshservice/generator.js';
import { openDatabase } from '../../src/main/store/database.js';
import { ResourceStore } from '../../src/main/store/resource-store.js';
import type { DataplaneResource, ResourceInput } from '../../src/shared/resources.js';
import { median } from '../../tools/load/stats.js';
import type { BenchOptions, BenchRow } from '../measure.js';

const DATAPLANES = 1000;
/** 100 services of 10 Dataplanes each, two inbounds per Dataplane. */
const SERVICES = 100;

function dataplaneInput(index: number): ResourceInput<'Dataplane'> {
  const service = `svc-${index % SERVICES}`;
  return {
    type: 'Dataplane',
    mesh: 'default',
    name: `dp-${index}`,
    labels: {},
    spec: {
      networking: {
        address: `10.${Math.floor(index / 250)}.${index % 250}.1`,
        inbound: [
          { port: 8080, tags: { 'kuma.io/service': service, 'kuma.io/protocol': 'http' } },
          { port: 9090, name: 'metrics', tags: { 'kuma.io/service': service } },
        ],
      },
    },
  };
}

/**
 * The MeshService generator (meshservice/): the pure generation from 1,000 Dataplanes (first pass,
 * every MeshService to create; steady pass, nothing to write), then the whole zone pass on a real
 * store (generation, VIPs, hostnames, statuses written) for the same mesh, and the pass a Dataplane
 * joining one service causes. Budget from issue 24: generation from 1,000 Dataplanes ≤ 200 ms.
 */
export async function meshService(options: BenchOptions): Promise<BenchRow[]> {
  const rounds = options.quick ? 3 : 9;
  const dir = mkdtempSync(join(tmpdir(), 'meshdesk-bench-'));
  const db = openDatabase(join(dir, 'meshdesk.db'));
  const events = new EventBus();
  const manager = new ResourceManager({ store: new ResourceStore(db), events });
  let controller: ServiceModelController | undefined;
  try {
    await manager.create({ type: 'Mesh', mesh: '', name: 'default', labels: {}, spec: { meshServices: { mode: 'Everywhere' } } });
    await manager.writeAll(Array.from({ length: DATAPLANES }, (_, index) => dataplaneInput(index)));
    const dataplanes = (await manager.list('Dataplane', { mesh: 'default' })) as DataplaneResource[];
    const generate = (meshServices: Awaited<ReturnType<typeof manager.list<'MeshService'>>>) =>
      generateMeshServices({ mesh: 'default', zone: 'default', enabled: true, dataplanes, meshServices, now: new Date(), deletionGracePeriodMs: 3_600_000 });
    const timed = (operation: () => unknown) => {
      const start = performance.now();
      operation();
      return performance.now() - start;
    };
    const firstGeneration = median(Array.from({ length: rounds }, () => timed(() => generate([]))));

    controller = new ServiceModelController({
      manager,
      events,
      zone: 'default',
      deletionGracePeriodMs: () => 3_600_000,
      proxyFacts: () => ({ online: false, certificateIssued: false }),
      onProxyChange: () => () => {},
    });
    let start = performance.now();
    await controller.start();
    const wholeFirstPass = performance.now() - start;
    const meshServices = await manager.list('MeshService', { mesh: 'default' });
    if (meshServices.length !== SERVICES) throw new Error(`expected ${SERVICES} MeshServices, got ${meshServices.length}`);
    const steadyGeneration = median(Array.from({ length: rounds }, () => timed(() => generate(meshServices))));

    const joins: number[] = [];
    for (let round = 0; round < rounds; round++) {
      start = performance.now();
      await manager.create(dataplaneInput(DATAPLANES + round));
      await controller.settled();
      joins.push(performance.now() - start);
    }
    return [
      { benchmark: `meshservice: generate from ${DATAPLANES} Dataplanes, all new`, value: firstGeneration, unit: 'ms', note: `${SERVICES} MeshServices, budget 200 ms` },
      { benchmark: `meshservice: generate from ${DATAPLANES} Dataplanes, unchanged`, value: steadyGeneration, unit: 'ms', note: 'nothing to write' },
      { benchmark: `meshservice: first zone pass, ${DATAPLANES} Dataplanes`, value: wholeFirstPass, unit: 'ms', note: 'store reads, creates, VIPs, hostnames, statuses' },
      { benchmark: 'meshservice: a Dataplane joins, write to settled', value: median(joins), unit: 'ms', note: `median of ${rounds}, ${DATAPLANES}+ Dataplanes in the mesh` },
    ];
  } finally {
    await controller?.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
