import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../protocol/type-urls.js';
import { firstConfigBreakdown, type FirstConfigBreakdown } from './first-config.js';
import { ProxyTimeline, type PostCreateStrategy, type ProxyEventBody as ProxyEvent, type TickResult } from './proxy-timeline.js';

/** Every event of a list is written with its time in ms since the stream opened. */
const T0 = 1_700_000_000_000;

const opened = (ms: number, streamId = 1): ProxyEvent => ({ kind: 'stream-opened', at: T0 + ms, streamId, cacheExpirationMs: 1000 });
const closed = (ms: number, streamId = 1): ProxyEvent => ({ kind: 'stream-closed', at: T0 + ms, streamId, ending: { by: 'proxy' } });
const registered = (ms: number, origin: 'metadata' | 'api' = 'metadata'): ProxyEvent => ({
  kind: 'registered',
  at: T0 + ms,
  origin,
  created: origin === 'metadata',
  version: 1,
});
const waited = (startMs: number, waitedMs: number, strategy: PostCreateStrategy, cause: string): ProxyEvent => ({
  kind: 'post-create-wait',
  at: T0 + startMs + waitedMs,
  startedAt: T0 + startMs,
  waitedMs,
  strategy,
  cause,
});
const tick = (endMs: number, result: TickResult, durationMs = 2, detail?: string): ProxyEvent => ({
  kind: 'tick',
  at: T0 + endMs,
  result,
  durationMs,
  ...(detail && { detail }),
  ...(result === 'changed' && { versions: { [CLUSTER_TYPE_URL]: 'c1', [LISTENER_TYPE_URL]: 'l1' } }),
});
const response = (ms: number, typeUrl: string): ProxyEvent => ({ kind: 'response', at: T0 + ms, typeUrl, version: 'v1', nonce: String(ms), resources: 1 });
const ack = (ms: number, typeUrl: string): ProxyEvent => ({ kind: 'ack', at: T0 + ms, typeUrl, version: 'v1', nonce: String(ms) });
const nack = (ms: number, typeUrl: string): ProxyEvent => ({ kind: 'nack', at: T0 + ms, typeUrl, version: 'v1', nonce: String(ms), error: 'bad' });

/** What Envoy does once configuration exists: CDS and LDS first, then EDS once it knows the clusters. */
function envoyDelivery(fromMs: number): ProxyEvent[] {
  return [
    response(fromMs + 1, CLUSTER_TYPE_URL),
    response(fromMs + 2, LISTENER_TYPE_URL),
    ack(fromMs + 4, CLUSTER_TYPE_URL),
    response(fromMs + 5, ENDPOINT_TYPE_URL),
    ack(fromMs + 6, LISTENER_TYPE_URL),
    ack(fromMs + 9, ENDPOINT_TYPE_URL),
  ];
}

function phasesOf(breakdown: FirstConfigBreakdown | undefined): Array<[string, number, number]> {
  return breakdown!.phases.map((phase) => [phase.name, phase.startMs, phase.endMs]);
}

describe('first-config breakdown', () => {
  it('sleep: the post-create wait sits between registration and the first generation', () => {
    const events = [
      opened(0),
      registered(3),
      waited(3, 1000, 'sleep', 'slept 1s, the cache expiration time'),
      tick(1010, 'changed', 4),
      ...envoyDelivery(1010),
    ];

    const breakdown = firstConfigBreakdown(events);

    expect(phasesOf(breakdown)).toEqual([
      ['registration', 0, 3],
      ['post-create-wait', 3, 1003],
      ['first-generation', 1003, 1010],
      ['first-responses', 1010, 1015],
      ['first-acks', 1015, 1019],
    ]);
    expect(breakdown).toMatchObject({
      streamId: 1,
      openedAt: T0,
      open: true,
      registration: { origin: 'metadata', created: true, atMs: 3 },
      postCreateWait: { strategy: 'sleep', waitedMs: 1000, cause: 'slept 1s, the cache expiration time', startMs: 3, endMs: 1003 },
      firstTick: { result: 'changed', startMs: 1006, endMs: 1010, durationMs: 4 },
      firstConfigTick: { result: 'changed', ticksBefore: 0 },
      total: { complete: true, endMs: 1019, durationMs: 1019 },
    });
  });

  it("names meshdesk's post-create wait while it runs, until it ends", () => {
    const running: ProxyEvent[] = [opened(0), registered(5), { kind: 'post-create-wait-started', at: T0 + 6, strategy: 'sleep', endsAt: T0 + 1006 }];

    expect(firstConfigBreakdown(running)?.postCreateWaitRunning).toEqual({ strategy: 'sleep', startMs: 6, endMs: 1006 });
    expect(firstConfigBreakdown([...running, waited(6, 1000, 'sleep', 'waited')])?.postCreateWaitRunning).toBeUndefined();
  });

  it('gives the first response and first ACK of every type, in order of the first response', () => {
    const breakdown = firstConfigBreakdown([opened(0), registered(1), tick(5, 'changed'), ...envoyDelivery(5)]);

    expect(breakdown!.types).toEqual([
      { typeUrl: CLUSTER_TYPE_URL, type: 'cds', firstResponseMs: 6, firstAckMs: 9, nacks: 0 },
      { typeUrl: LISTENER_TYPE_URL, type: 'lds', firstResponseMs: 7, firstAckMs: 11, nacks: 0 },
      { typeUrl: ENDPOINT_TYPE_URL, type: 'eds', firstResponseMs: 10, firstAckMs: 14, nacks: 0 },
    ]);
  });

  it('invalidate: a short wait, with its cause', () => {
    const cause = 'dropped 3 cache entries and the MeshContext of mesh "default"';
    const events = [opened(0), registered(2), waited(2, 0.5, 'invalidate', cause), tick(4, 'changed'), ...envoyDelivery(4)];

    const breakdown = firstConfigBreakdown(events);

    expect(breakdown!.postCreateWait).toEqual({ strategy: 'invalidate', waitedMs: 0.5, cause, startMs: 2, endMs: 2.5 });
    expect(phasesOf(breakdown).map(([name]) => name)).toEqual([
      'registration',
      'post-create-wait',
      'first-generation',
      'first-responses',
      'first-acks',
    ]);
    expect(breakdown!.total).toEqual({ complete: true, endMs: 13, durationMs: 13 });
  });

  it('none: the first tick misses the Dataplane and configuration comes on a later tick', () => {
    const events = [
      opened(0),
      registered(2),
      waited(2, 0, 'none', 'strategy none: neither sleep nor invalidate'),
      tick(3, 'dataplane-not-found', 1, 'dataplane not found'),
      tick(1003, 'dataplane-not-found', 1, 'dataplane not found'),
      tick(2003, 'changed', 1),
      ...envoyDelivery(2003),
    ];

    const breakdown = firstConfigBreakdown(events);

    expect(breakdown).toMatchObject({
      firstTick: { result: 'dataplane-not-found', detail: 'dataplane not found', endMs: 3 },
      firstConfigTick: { result: 'changed', endMs: 2003, ticksBefore: 2 },
    });
    expect(phasesOf(breakdown)).toEqual([
      ['registration', 0, 2],
      ['post-create-wait', 2, 2],
      ['first-generation', 2, 3],
      ['dataplane-not-found', 3, 2003],
      ['first-responses', 2003, 2008],
      ['first-acks', 2008, 2012],
    ]);
  });

  it('API-created Dataplane: no wait at all', () => {
    const events = [opened(0), registered(1, 'api'), tick(3, 'changed'), ...envoyDelivery(3)];

    const breakdown = firstConfigBreakdown(events);

    expect(breakdown!.registration).toEqual({ origin: 'api', created: false, atMs: 1 });
    expect(breakdown!.postCreateWait).toBeUndefined();
    expect(phasesOf(breakdown).map(([name]) => name)).toEqual(['registration', 'first-generation', 'first-responses', 'first-acks']);
  });

  it('is incomplete while a type that got a response has not ACKed it, and counts the NACKs before the ACK', () => {
    const events = [
      opened(0),
      registered(1, 'api'),
      tick(3, 'changed'),
      response(4, CLUSTER_TYPE_URL),
      nack(5, CLUSTER_TYPE_URL),
      response(6, LISTENER_TYPE_URL),
      ack(7, LISTENER_TYPE_URL),
    ];

    const breakdown = firstConfigBreakdown(events);

    expect(breakdown!.total).toEqual({ complete: false });
    expect(phasesOf(breakdown).at(-1)).toEqual(['first-responses', 3, 6]);
    expect(breakdown!.types[0]).toEqual({ typeUrl: CLUSTER_TYPE_URL, type: 'cds', firstResponseMs: 4, nacks: 1 });

    const accepted = firstConfigBreakdown([...events, response(8, CLUSTER_TYPE_URL), ack(9, CLUSTER_TYPE_URL)]);
    expect(accepted!.types[0]).toMatchObject({ firstAckMs: 9, nacks: 1 });
    expect(accepted!.total).toEqual({ complete: true, endMs: 9, durationMs: 9 });
  });

  it('stops at the first milestone that has not come yet', () => {
    const waiting = firstConfigBreakdown([opened(0), registered(2), waited(2, 10, 'sleep', 'sleeping')]);
    expect(phasesOf(waiting)).toEqual([
      ['registration', 0, 2],
      ['post-create-wait', 2, 12],
    ]);
    expect(waiting!.firstTick).toBeUndefined();

    const retrying = firstConfigBreakdown([opened(0), registered(2), tick(5, 'dataplane-not-found')]);
    expect(phasesOf(retrying).map(([name]) => name)).toEqual(['registration', 'first-generation']);
    expect(retrying!.firstConfigTick).toBeUndefined();
  });

  it('describes only the first connection, even when a later one went faster', () => {
    const events = [
      registered(-5, 'api'), // before any stream: not part of a connection
      opened(0, 1),
      registered(1),
      waited(1, 1000, 'sleep', 'sleeping'),
      closed(500, 1),
      tick(1001, 'changed'), // after the close: belongs to nothing
      opened(2000, 2),
      registered(2001),
      tick(2002, 'changed'),
      ...envoyDelivery(2002),
    ];

    const breakdown = firstConfigBreakdown(events);

    expect(breakdown).toMatchObject({ streamId: 1, open: false, registration: { atMs: 1 }, types: [], total: { complete: false } });
    expect(breakdown!.firstTick).toBeUndefined();
  });

  it('ends the first connection where the next stream opens, if its close was not recorded', () => {
    const breakdown = firstConfigBreakdown([opened(0, 1), registered(1), opened(10, 2), tick(12, 'changed')]);

    expect(breakdown).toMatchObject({ streamId: 1, open: false });
    expect(breakdown!.firstTick).toBeUndefined();
  });

  it('never draws a negative phase: a response earlier than its milestone makes an empty one', () => {
    // A snapshot left over in the cache is sent before the first tick of this connection.
    const events = [opened(0), registered(1, 'api'), response(2, CLUSTER_TYPE_URL), tick(5, 'changed'), ack(6, CLUSTER_TYPE_URL)];

    expect(phasesOf(firstConfigBreakdown(events))).toEqual([
      ['registration', 0, 1],
      ['first-generation', 1, 5],
      ['first-responses', 5, 5],
      ['first-acks', 5, 6],
    ]);
  });

  it("stays readable on a long-running proxy's bounded timeline, after hours of skip ticks", () => {
    const timeline = new ProxyTimeline();
    const first = [opened(0), registered(1, 'api'), tick(3, 'changed'), ...envoyDelivery(3)];
    for (const event of first) timeline.record('default.web-1', event);
    for (let second = 1; second <= 5_000; second++) timeline.record('default.web-1', tick(second * 1000, 'skip', 0.1));

    expect(timeline.events('default.web-1').length).toBeLessThanOrEqual(1000);
    expect(firstConfigBreakdown(timeline.events('default.web-1'))).toEqual(firstConfigBreakdown(first));
  });

  it('is undefined for a proxy whose stream opening is not on its timeline', () => {
    expect(firstConfigBreakdown([])).toBeUndefined();
    expect(firstConfigBreakdown([registered(1), tick(2, 'changed')])).toBeUndefined();
  });

  it('whatever the events, phases follow each other without gap or overlap and add up to the total', () => {
    const typeUrl = fc.constantFrom(CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL);
    const event = fc.oneof(
      fc.nat(5000).map((ms) => registered(ms)),
      fc.tuple(fc.nat(5000), fc.nat(2000)).map(([ms, wait]) => waited(ms, wait, 'sleep', 'sleeping')),
      fc.tuple(fc.nat(5000), fc.constantFrom<TickResult>('changed', 'generated', 'skip', 'dataplane-not-found', 'error')).map(([ms, result]) =>
        tick(ms, result, 1),
      ),
      fc.tuple(fc.nat(5000), typeUrl).map(([ms, type]) => response(ms, type)),
      fc.tuple(fc.nat(5000), typeUrl).map(([ms, type]) => ack(ms, type)),
      fc.tuple(fc.nat(5000), typeUrl).map(([ms, type]) => nack(ms, type)),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (rest) => {
        const breakdown = firstConfigBreakdown([opened(0), ...rest])!;
        let previousEnd = 0;
        for (const phase of breakdown.phases) {
          expect(phase.startMs).toBe(previousEnd);
          expect(phase.durationMs).toBe(phase.endMs - phase.startMs);
          expect(phase.durationMs).toBeGreaterThanOrEqual(0);
          previousEnd = phase.endMs;
        }
        if (breakdown.total.complete) expect(breakdown.total.durationMs).toBe(previousEnd);
      }),
    );
  });
});
