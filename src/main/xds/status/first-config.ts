import { shortTypeName } from '../protocol/type-urls.js';
import type { ProxyEventBody as ProxyEvent } from '../../../shared/proxy-events.js';
import type { FirstConfigBreakdown as FirstConfigBody, FirstConfigPhase, FirstConfigPhaseName, FirstConfigType, TickSummary } from '../../../shared/api-types.js';

export type { FirstConfigPhase, FirstConfigPhaseName, FirstConfigType, TickSummary };

/** The breakdown as computed from a proxy's events; the API adds the proxy id. */
export type FirstConfigBreakdown = Omit<FirstConfigBody, 'proxyId'>;

const PHASE_LABELS: { readonly [P in FirstConfigPhaseName]: string } = {
  registration: 'stream open → Dataplane registered in the store',
  'post-create-wait': 'post-create wait (so that the first generation sees the new Dataplane)',
  'certificate-issuance': "the proxy's mesh mTLS identity certificate issued (key pair and signature), once its mesh's view was read",
  'first-generation': 'first generation by the sync tracker',
  'dataplane-not-found': 'the first generation missed the Dataplane; ticks until one found it',
  'first-responses': 'until every type got its first response',
  'first-acks': 'until every type that got a response ACKed it',
};

type EventOf<K extends ProxyEvent['kind']> = Extract<ProxyEvent, { kind: K }>;

/**
 * The breakdown of the connection that starts at the first `stream-opened` of `events` (the
 * timeline passes one connection's events). Undefined when they hold no stream opening. Pure: the
 * same events give the same breakdown.
 */
export function firstConfigBreakdown(events: readonly ProxyEvent[]): FirstConfigBreakdown | undefined {
  const connection = firstConnection(events);
  if (!connection) return undefined;
  const { opened, events: during, open, closed } = connection;
  const ms = (at: number) => at - opened.at;

  const registered = find(during, 'registered');
  const wait = find(during, 'post-create-wait');
  const waitStarted = find(during, 'post-create-wait-started');
  const ticks = during.filter((event): event is EventOf<'tick'> => event.kind === 'tick');
  const firstTick = ticks[0];
  const configTickIndex = ticks.findIndex((tick) => tick.result === 'generated' || tick.result === 'changed');
  const configTick = ticks[configTickIndex];
  const types = typeTimes(during, ms);
  // The tick that issued the connection's identity certificate: the config tick, or a tick before it.
  const certificateTick = ticks.slice(0, configTickIndex === -1 ? ticks.length : configTickIndex + 1).find((tick) => tick.certificate);
  const certificate = certificateTick?.certificate && {
    startMs: ms(certificateTick.certificate.startedAt),
    endMs: ms(certificateTick.certificate.startedAt + certificateTick.certificate.durationMs),
    durationMs: certificateTick.certificate.durationMs,
  };
  const certificateMilestone: [FirstConfigPhaseName, number][] = certificate ? [['certificate-issuance', certificate.endMs]] : [];

  const milestones: Array<[FirstConfigPhaseName, number | undefined]> = [];
  if (registered) milestones.push(['registration', ms(registered.at)]);
  if (wait) milestones.push(['post-create-wait', ms(wait.startedAt + wait.waitedMs)]);
  // Issuance runs inside the tick that issued: its phase ends before that tick's own.
  if (certificateTick === firstTick) milestones.push(...certificateMilestone);
  milestones.push(['first-generation', firstTick && ms(firstTick.at)]);
  if (firstTick && firstTick !== configTick) {
    if (certificateTick !== firstTick) milestones.push(...certificateMilestone);
    milestones.push(['dataplane-not-found', configTick && ms(configTick.at)]);
  }
  milestones.push(['first-responses', latest(types.map((type) => type.firstResponseMs))]);
  const allAcked = types.length > 0 && types.every((type) => type.firstAckMs !== undefined);
  milestones.push(['first-acks', allAcked ? latest(types.map((type) => type.firstAckMs!)) : undefined]);
  const phases = consecutivePhases(milestones);

  const endMs = phases.at(-1)?.name === 'first-acks' ? phases.at(-1)!.endMs : undefined;
  return {
    streamId: opened.streamId,
    openedAt: opened.at,
    cacheExpirationMs: opened.cacheExpirationMs,
    open,
    ...(closed && { ending: closed.ending }),
    ...(registered && { registration: { origin: registered.origin, created: registered.created, atMs: ms(registered.at) } }),
    ...(wait && {
      postCreateWait: {
        strategy: wait.strategy,
        waitedMs: wait.waitedMs,
        cause: wait.cause,
        startMs: ms(wait.startedAt),
        endMs: ms(wait.startedAt + wait.waitedMs),
      },
    }),
    ...(waitStarted &&
      !wait && { postCreateWaitRunning: { strategy: waitStarted.strategy, startMs: ms(waitStarted.at), endMs: ms(waitStarted.endsAt) } }),
    ...(firstTick && { firstTick: tickSummary(firstTick, ms) }),
    ...(configTick && { firstConfigTick: { ...tickSummary(configTick, ms), ticksBefore: configTickIndex } }),
    ...(certificate && { certificateIssuance: certificate }),
    types,
    phases,
    total: { complete: endMs !== undefined, ...(endMs !== undefined && { endMs, durationMs: endMs }) },
  };
}

/** The first `stream-opened` and what followed until that stream closed or another one opened. */
function firstConnection(events: readonly ProxyEvent[]) {
  const start = events.findIndex((event) => event.kind === 'stream-opened');
  if (start === -1) return undefined;
  const opened = events[start] as EventOf<'stream-opened'>;
  const rest = events.slice(start + 1);
  const end = rest.findIndex(
    (event) => event.kind === 'stream-opened' || (event.kind === 'stream-closed' && event.streamId === opened.streamId),
  );
  const closed = end === -1 ? undefined : rest[end]!.kind === 'stream-closed' ? (rest[end] as EventOf<'stream-closed'>) : undefined;
  return { opened, events: end === -1 ? rest : rest.slice(0, end), open: end === -1, closed };
}

function find<K extends ProxyEvent['kind']>(events: readonly ProxyEvent[], kind: K): EventOf<K> | undefined {
  return events.find((event): event is EventOf<K> => event.kind === kind);
}

function tickSummary(tick: EventOf<'tick'>, ms: (at: number) => number): TickSummary {
  return {
    result: tick.result,
    ...(tick.detail !== undefined && { detail: tick.detail }),
    startMs: ms(tick.at - tick.durationMs - (tick.queuedMs ?? 0) - (tick.certificate?.durationMs ?? 0)),
    endMs: ms(tick.at),
    durationMs: tick.durationMs,
  };
}

/** First response, first ACK and the NACKs in between, per type, in order of the first response. */
function typeTimes(events: readonly ProxyEvent[], ms: (at: number) => number): FirstConfigType[] {
  const byType = new Map<string, FirstConfigType>();
  for (const event of events) {
    if (event.kind === 'response' && !byType.has(event.typeUrl)) {
      byType.set(event.typeUrl, { typeUrl: event.typeUrl, type: shortTypeName(event.typeUrl), firstResponseMs: ms(event.at), nacks: 0 });
    }
    const type = (event.kind === 'ack' || event.kind === 'nack') && byType.get(event.typeUrl);
    if (!type || type.firstAckMs !== undefined) continue;
    if (event.kind === 'ack') type.firstAckMs = ms(event.at);
    else type.nacks += 1;
  }
  return [...byType.values()];
}

function latest(times: number[]): number | undefined {
  return times.length === 0 ? undefined : Math.max(...times);
}

/**
 * Each phase runs from the previous milestone to its own; the phases stop at the first milestone
 * that has not happened. A milestone earlier than the previous one (a response to a snapshot left
 * from before, say) makes an empty phase rather than a negative one.
 */
function consecutivePhases(milestones: ReadonlyArray<[FirstConfigPhaseName, number | undefined]>): FirstConfigPhase[] {
  const phases: FirstConfigPhase[] = [];
  let startMs = 0;
  for (const [name, at] of milestones) {
    if (at === undefined) break;
    const endMs = Math.max(startMs, at);
    phases.push({ name, label: PHASE_LABELS[name], startMs, endMs, durationMs: endMs - startMs });
    startMs = endMs;
  }
  return phases;
}
