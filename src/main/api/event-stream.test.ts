import { get, type IncomingMessage } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Core } from '../core.js';
import { startTestCore } from '../../../test/support/core.js';
import { eventually } from '../../../test/support/eventually.js';
import { LONG_RUN } from '../../../test/reliability/support/seeded-random.js';
import { MAX_PENDING_BYTES } from './event-stream.js';

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
  // Counts events without keeping them (the test's own memory is not the server's).
  let events = 0;
  let tail = '';
  if (reading) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      const text = tail + chunk;
      events += text.split('\n\n').length - 1;
      tail = text.slice(text.lastIndexOf('\n\n') + 2);
    });
  } else response.socket.pause();
  const closed = new Promise<void>((resolve) => response.on('close', () => resolve()));
  return { response, events: () => events, closed };
}

const EVENT_PADDING = 16 * 1024;
/** 20 MB per subscriber (80 MB in the long run), far beyond the kernel's loopback socket buffers. */
const EVENTS = LONG_RUN ? 5120 : 1280;
/** Issue 12: 100 such subscribers took the heap from 187 MB to 1.55 GB. */
const STALLED = LONG_RUN ? 100 : 10;

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
    await eventually(() => expect(reader.events()).toBe(EVENTS + 1)); // and the stream's opening comment
    expect(MAX_PENDING_BYTES).toBeLessThan(EVENT_PADDING * EVENTS);
  });
});
