import { get, type IncomingMessage } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Core } from '../core.js';
import { startTestCore } from '../../../test/support/core.js';
import { eventually } from '../../../test/support/eventually.js';
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
const EVENTS = 1280; // 20 MB per subscriber, far beyond the kernel's loopback socket buffers

describe('GET /events', () => {
  it('drops subscribers that stop reading, so the heap stays bounded, and keeps feeding the ones that read', async () => {
    const core = await startTestCore();
    const stalled = await Promise.all(Array.from({ length: 10 }, () => subscribe(core, false)));
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

    // Before: every stalled subscriber held what it did not read, 10 × 20 MB minus the kernel's buffers.
    expect(heapPeak - heapBefore, 'heap growth while 20 MB of events went to 10 stalled subscribers').toBeLessThan(48 * 1024 * 1024);
    expect(await core.metrics.eventStreamDropped.get()).toMatchObject({ values: [{ value: 10 }] });
    // What was queued for them reaches them, then the end of the stream.
    for (const subscriber of stalled) subscriber.response.resume();
    await Promise.all(stalled.map((subscriber) => subscriber.closed));
    await eventually(() => expect(reader.events()).toBe(EVENTS + 1)); // and the stream's opening comment
    expect(MAX_PENDING_BYTES).toBeLessThan(EVENT_PADDING * EVENTS);
  });
});
