import { status } from '@grpc/grpc-js';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { nodeWithDataplane, universalDataplane } from '../../../src/main/xds/callbacks/testing/control-plane.js';
import { CLUSTER_TYPE_URL } from '../../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../../src/main/xds/server/testing/raw-ads-client.js';
import { seededRandom, type Random } from './seeded-random.js';

/**
 * The proxies of the churn test: universal proxies (Dataplane in node metadata) connecting and
 * disconnecting against an ADS port. It runs in its own process (see `runChurnClients` in
 * churn.test.ts), so that the control plane's memory is measured without the clients' own.
 */

export interface ChurnPlan {
  adsPort: number;
  cycles: number;
  workers: number;
  proxiesPerWorker: number;
  seed: number;
}

export interface ChurnClientCounts {
  cycles: number;
  /** Cycles that disconnected a few milliseconds after the first request, mid-registration. */
  earlyDisconnects: number;
  /** A reconnect that reached the server before its previous stream's close: refused, retried (as Envoy does). */
  refusedAsDuplicate: number;
}

/** Cycles that disconnect at once, before (or while) the control plane registers and configures the proxy. */
const EARLY_DISCONNECT_CHANCE = 0.2;

export function churnProxyName(worker: number, index: number): string {
  return `churn-${worker}-${index}`;
}

/**
 * Its own inbound port per proxy (meshdesk refuses two inbounds on one address and port), the same
 * in every churn process: a Dataplane left by the previous run may still wait for deregistration.
 */
function churnInboundPort(name: string): number {
  const [, worker, index] = /^churn-(\d+)-(\d+)$/.exec(name)!;
  return 20_000 + Number(worker) * 1_000 + Number(index);
}

/**
 * One cycle: connect with the Dataplane in metadata, take the first CDS response, ACK it (mostly),
 * disconnect; or, sometimes, disconnect a few milliseconds after the first request.
 */
async function cycle(adsPort: number, name: string, counts: ChurnClientCounts, random: Random): Promise<void> {
  for (;;) {
    const client = new RawAdsClient(adsPort, nodeWithDataplane(`default.${name}`, universalDataplane('default', name, 'backend', churnInboundPort(name))));
    client.send(CLUSTER_TYPE_URL);
    if (random.chance(EARLY_DISCONNECT_CHANCE)) {
      await new Promise((resolve) => setTimeout(resolve, random.int(0, 3)));
      client.close();
      await client.status;
      counts.earlyDisconnects += 1;
      return;
    }
    const first = await Promise.race([client.next(), client.status]);
    if ('code' in first) {
      client.close();
      if (first.code !== status.PERMISSION_DENIED) throw new Error(`proxy ${name} was refused: ${first.code} ${first.details}`);
      counts.refusedAsDuplicate += 1;
      await new Promise((resolve) => setTimeout(resolve, random.int(1, 20)));
      continue;
    }
    if (random.chance(0.8)) client.ack(first);
    client.close();
    await client.status;
    return;
  }
}

/** Each worker rotates over its own proxies, so a proxy comes back a few cycles after it left. */
export async function churn(plan: ChurnPlan): Promise<ChurnClientCounts> {
  const random = seededRandom(plan.seed);
  const counts: ChurnClientCounts = { cycles: 0, earlyDisconnects: 0, refusedAsDuplicate: 0 };
  let remaining = plan.cycles;
  await Promise.all(
    Array.from({ length: plan.workers }, async (_, worker) => {
      for (let round = 0; remaining > 0; round++) {
        remaining -= 1;
        await cycle(plan.adsPort, churnProxyName(worker, round % plan.proxiesPerWorker), counts, random);
        counts.cycles += 1;
      }
    }),
  );
  return counts;
}

// As a process: the plan as JSON in argv[2], the counts as JSON on stdout. Node gives import.meta.url
// with symlinks resolved (the bundle sits under node_modules, a symlink in a git worktree): so argv too.
if (import.meta.url === pathToFileURL(realpathSync(process.argv[1]!)).href) {
  churn(JSON.parse(process.argv[2]!) as ChurnPlan).then(
    (counts) => {
      process.stdout.write(JSON.stringify(counts));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
