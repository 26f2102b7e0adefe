import { get, type ClientRequest, type IncomingMessage } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Core } from '../core.js';
import { startTestCore } from '../../../test/support/core.js';
import { eventually } from '../../../test/support/eventually.js';
import { LONG_RUN } from '../../../test/reliability/support/seeded-random.js';
import { MAX_PENDING_BYTES, MAX_SUBSCRIBERS } from './event-stream.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A real HTTP subscriber of `/events`; `reading: false` never reads a byte after the headers. */
async function subscribe(core: Core, reading: boolean): Promise<{ response: IncomingMessage; events: () => number; closed: Promise<void> }> {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = get(`${core.api.url}/events`, resolve);
    request.on('error', reject);
    onTestFinished(() => {
      request.destroy();
    });
  });
  // Counts events without keeping them (the test's own memory is not the server's); comments
  // (the stream's opening line, heartbeats in a long run) are not events.
  let events = 0;
  let tail = '';
  if (reading) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      const blocks = (tail + chunk).split('\n\n');
      tail = blocks.pop()!;
      events += blocks.filter((block) => block.startsWith('event:')).length;
    });
  } else response.socket.pause();
  const closed = new Promise<void>((resolve) => response.on('close', () => resolve()));
  return { response, events: () => events, closed };
}

const EVENT_PADDING = 16 * 1024;
/** 20 MB per subscriber (80 MB in the long run), far beyond the kernel's loopback socket buffers. */
const EVENTS = LONG_RUN ? 5120 : 1280;
/** Issue 12: 100 such subscribers took the heap from 187 MB to 1.55 GB; as many as are served at once, less the reader. */
const STALLED = LONG_RUN ? MAX_SUBSCRIBERS - 1 : 10;

describe('GET /events', () => {
  it('drops subscribers that stop reading, so the heap stays bounded, and keeps feeding the ones that read', async () => {
    const core = await startTestCore();
    const stalled = await Promise.all(Array.from({ length: STALLED }, () => subscribe(core, false)));
    const reader = await subscribe(core, true);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;

    const padding = 'x'.repeat(EVENT_PADDING);
    for (let index = 0; index < EVENTS; index++) {
      core.events.publish({ topic: 'settings.changed', changed: { [`test.padding.${index}`]: padding } });
      if (index % 4 === 3) {
        await nextTurn(); // lets the sockets drain, as between two real events
        heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
      }
    }

    // Before: every stalled subscriber held what it did not read (10 × 20 MB: +175 MB of heap).
    const bound = STALLED * MAX_PENDING_BYTES + 32 * 1024 * 1024;
    expect(heapPeak - heapBefore, `heap growth while ${EVENTS} events went to ${STALLED} stalled subscribers`).toBeLessThan(bound);
    expect(await core.metrics.eventStreamDropped.get()).toMatchObject({ values: [{ value: STALLED }] });
    // What was queued for them reaches them, then the end of the stream.
    for (const subscriber of stalled) subscriber.response.resume();
    await Promise.all(stalled.map((subscriber) => subscriber.closed));
    await eventually(() => expect(reader.events()).toBe(EVENTS));
    expect(MAX_PENDING_BYTES).toBeLessThan(EVENT_PADDING * EVENTS);
  });
});

/** Issue 27: 1,000 subscribers that never read. Two descriptors each (both ends are in this process): 200 fit a 1,024 limit. */
const ATTEMPTED = LONG_RUN ? 1000 : 200;
/** Small events, as proxies' churn sends: the old code buffered each as its own write. */
const SMALL_EVENT_PADDING = 512;

interface Attempt {
  request: ClientRequest;
  response: IncomingMessage;
  /** The answer's body when it is not the event stream (read whole). */
  body?: string;
}

/** Opens `/events` on a connection of its own and never reads the stream; a refusal's body is read. */
function attempt(core: Core): Promise<Attempt> {
  return new Promise((resolve, reject) => {
    const request = get(`${core.api.url}/events`, { agent: false }, (response) => {
      if (response.statusCode === 200) {
        response.socket.pause();
        return resolve({ request, response });
      }
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ request, response, body }));
    });
    request.on('error', reject);
    onTestFinished(() => {
      request.destroy();
    });
  });
}

describe('GET /events under many subscribers', () => {
  it(`serves at most ${MAX_SUBSCRIBERS} at once, refuses the others saying why, drops the stalled ones with bounded memory and frees their places`, async () => {
    const core = await startTestCore();
    gc();
    const before = process.memoryUsage();
    const attempts: Attempt[] = [];
    for (let index = 0; index < ATTEMPTED; index++) attempts.push(await attempt(core));

    const admitted = attempts.filter((answer) => answer.response.statusCode === 200);
    const refused = attempts.filter((answer) => answer.response.statusCode !== 200);
    expect(admitted).toHaveLength(MAX_SUBSCRIBERS);
    expect(refused).toHaveLength(ATTEMPTED - MAX_SUBSCRIBERS);
    expect(refused[0]!.response.statusCode).toBe(503);
    expect(refused[0]!.response.headers['retry-after']).toBe('5');
    expect(JSON.parse(refused[0]!.body!)).toMatchObject({
      title: 'Too many event subscribers',
      detail: `${MAX_SUBSCRIBERS} /events subscribers are connected, the most meshdesk serves at once (${MAX_SUBSCRIBERS}); close another meshdesk window or event stream and retry`,
    });
    for (const answer of refused) answer.request.destroy();

    // Small events until every stalled subscriber fell MAX_PENDING_BYTES behind (beyond the kernel's buffers) and was dropped.
    const padding = 'x'.repeat(SMALL_EVENT_PADDING);
    let published = 0;
    let peak = 0;
    const dropped = async () => (await core.metrics.eventStreamDropped.get()).values[0]?.value ?? 0;
    while ((await dropped()) < MAX_SUBSCRIBERS) {
      for (let index = 0; index < 256; index++) {
        core.events.publish({ topic: 'settings.changed', changed: { [`test.padding.${published++}`]: padding } });
      }
      await nextTurn();
      gc(); // what stays, not the garbage of events already written
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed + now.external - (before.heapUsed + before.external));
      expect(published, 'events published before every stalled subscriber was dropped').toBeLessThan(200_000);
    }
    // Each one held at most MAX_PENDING_BYTES waiting, and one chunk as large in its socket.
    const bound = 2 * MAX_SUBSCRIBERS * MAX_PENDING_BYTES + 32 * 1024 * 1024;
    expect(peak, `memory growth while ${published} events went to ${MAX_SUBSCRIBERS} stalled subscribers`).toBeLessThan(bound);

    // The stalled clients go away: their places are free again, and a new subscriber is served.
    for (const answer of admitted) answer.request.destroy();
    await Promise.all(admitted.map((answer) => new Promise((resolve) => answer.response.socket.once('close', resolve))));
    const reader = await eventually(async () => {
      const subscriber = await subscribe(core, true);
      expect(subscriber.response.statusCode).toBe(200);
      return subscriber;
    });
    core.events.publish({ topic: 'settings.changed', changed: { 'test.after': true } });
    await eventually(() => expect(reader.events()).toBe(1));
  });
});
