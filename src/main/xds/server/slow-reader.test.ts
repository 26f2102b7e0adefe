import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { megabytes, settledMemory } from '../../../../test/reliability/support/memory.js';
import { LONG_RUN } from '../../../../test/reliability/support/seeded-random.js';
import { eventually } from '../../../../test/support/eventually.js';
import { CLUSTER_TYPE_URL } from '../protocol/type-urls.js';
import type { AdsServer } from './ads-server.js';
import { resourceVersion, snapshotFromJson } from './snapshot.js';
import { AdsTestbed, NODE_ID } from './testing/ads-testbed.js';
import { withProbe } from './testing/raw-ads-client.js';

/**
 * A client that stops reading its stream while its configuration keeps changing (issue 27: +200 MB
 * in 100 s, freed only on disconnect). Memory and byte counts are measured, never time.
 */

const CLUSTERS = 4;
const PADDING = 64 * 1024;
/** One response of the test's config: every cluster carries PADDING bytes. */
const RESPONSE_BYTES = CLUSTERS * (PADDING + 1024);
/** 200 changes of a 256 KB response: 51 MB queued for the stalled client before (2000: 0.5 GB). */
const CHANGES = LONG_RUN ? 2000 : 200;
/**
 * What the paused client holds itself, in this same process (grpc-js reads up to 16 messages ahead,
 * each received and decoded, plus its HTTP/2 windows), and the heap's noise: 8.8 MB measured,
 * where 200 queued responses took 55 MB.
 */
const CLIENT_AND_NOISE_BYTES = 48 * RESPONSE_BYTES;

let bed: AdsTestbed;

beforeEach(() => {
  bed = new AdsTestbed();
});

afterEach(async () => {
  await bed.close();
});

/** Config number `change`: every cluster differs from the change before (so every change is due to the client). */
function setConfig(change: number): void {
  const padding = String(change).padStart(PADDING, '.');
  const clusters = Array.from({ length: CLUSTERS }, (_, index) => ({ name: `cluster-${index}`, type: 'STATIC', connect_timeout: '1s', alt_stat_name: padding }));
  bed.cache.setSnapshot(NODE_ID, withProbe(snapshotFromJson({ [CLUSTER_TYPE_URL]: { version: `v${change}`, resources: clusters } })));
}

/**
 * Changes the config CHANGES times while the client does not read, and checks after each that
 * the server holds at most one response for it, and that its memory did not grow with the changes.
 */
async function changeWhileStalled(server: AdsServer): Promise<void> {
  const before = await settledMemory();
  let mostUnwritten = 0;
  for (let change = 1; change <= CHANGES; change++) {
    setConfig(change);
    await nextTurn(); // the stream's queue runs and its writes go as far as the client lets them
    mostUnwritten = Math.max(mostUnwritten, server.streams()[0]!.unwrittenBytes);
  }
  const after = await settledMemory();
  const grown = after.heapUsedBytes + after.externalBytes - (before.heapUsedBytes + before.externalBytes);
  expect(grown, `memory growth (${megabytes(grown)}) while ${CHANGES} changes of ${megabytes(RESPONSE_BYTES)} went to a stalled client`).toBeLessThan(
    CLIENT_AND_NOISE_BYTES,
  );
  // The client's flow-control window is full: the type's response waits, coalescing every change.
  await eventually(() => expect(server.streams()[0]!.heldResponses).toEqual([CLUSTER_TYPE_URL]));
  expect(mostUnwritten, 'bytes handed to gRPC and not yet written, for a client that does not read').toBeLessThanOrEqual(RESPONSE_BYTES);
}

/** What both raw clients do here: one response of the latest config read at a time, as version and ACK. */
interface StallingClient {
  pause(): void;
  resume(): void;
  barrier(): Promise<unknown>;
  nextResponse(): Promise<{ version: string; ack: () => void }>;
}

/**
 * Stops reading, changes the config CHANGES times (see changeWhileStalled), reads again until the
 * latest config and ACKs it; returns how many responses it read after resuming.
 */
async function stallThroughChanges(server: AdsServer, client: StallingClient): Promise<number> {
  const first = await client.nextResponse();
  first.ack();
  await client.barrier();
  client.pause();
  await changeWhileStalled(server);
  client.resume();
  for (let received = 1; ; received++) {
    const response = await client.nextResponse();
    if (response.version !== `v${CHANGES}`) continue;
    response.ack();
    await client.barrier(); // the ACK was handled
    expect(clusterSubscription(server).lastAcked?.version).toBe(`v${CHANGES}`);
    return received;
  }
}

/** Either raw client as a StallingClient, its responses' version read by `versionOf`. */
function stalling<Response>(
  client: { pause(): void; resume(): void; barrier(): Promise<unknown>; next(): Promise<Response>; ack(response: Response): void },
  versionOf: (response: Response) => string,
): StallingClient {
  return {
    pause: () => client.pause(),
    resume: () => client.resume(),
    barrier: () => client.barrier(),
    nextResponse: async () => {
      const response = await client.next();
      return { version: versionOf(response), ack: () => client.ack(response) };
    },
  };
}

function clusterSubscription(server: AdsServer) {
  return server.streams()[0]!.subscriptions.find((subscription) => subscription.typeUrl === CLUSTER_TYPE_URL)!;
}

describe('a client that stops reading its ADS stream', () => {
  test('State of the World: the server holds one response per type, and the client gets the latest config when it reads again and ACKs it', async () => {
    const { server, port } = await bed.start();
    setConfig(0);
    const client = bed.sotwClient(port);
    client.send(CLUSTER_TYPE_URL);
    const received = await stallThroughChanges(server, stalling(client, (response) => response.version_info));
    expect(clusterSubscription(server).lastSent?.version).toBe(`v${CHANGES}`);
    expect(received, 'responses read after resuming: what the client had buffered, then the latest').toBeLessThan(CHANGES / 4);
  });

  test('delta: the server holds one response per type, and the client ends with exactly the latest resources when it reads again', async () => {
    const { server, port } = await bed.start();
    setConfig(0);
    const client = bed.deltaClient(port);
    client.send(CLUSTER_TYPE_URL, { subscribe: ['*'] });
    const received = await stallThroughChanges(server, stalling(client, (response) => response.system_version_info));
    const latest = bed.cache.getSnapshot(NODE_ID)!.get(CLUSTER_TYPE_URL)!.resources;
    expect(client.held(CLUSTER_TYPE_URL)).toEqual(new Map([...latest].map(([name, resource]) => [name, resourceVersion(resource)])));
    expect(received).toBeLessThan(CHANGES / 4);
  });
});
