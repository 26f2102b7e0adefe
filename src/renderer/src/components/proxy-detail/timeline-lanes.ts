// How a proxy's events sit on the Timeline tab's time axis: one lane per concern, one mark per event.
import { plural } from '../../../../shared/plural.js';
import { isRefusal, type ProxyEventBody as ProxyEvent } from '../../../../shared/proxy-events.js';
import { formatDateTime, formatDuration } from '../../lib/format/duration.js';
import { shortVersion, xdsTypeOf, XDS_TYPES } from '../../lib/format/xds.js';

export const LANES = ['stream', 'wait', 'generation', ...XDS_TYPES] as const;
export type Lane = (typeof LANES)[number];

export const LANE_LABELS: Record<Lane, string> = {
  stream: 'Stream',
  wait: 'Post-create wait',
  generation: 'Generation',
  sds: 'SDS',
  cds: 'CDS',
  eds: 'EDS',
  lds: 'LDS',
  rds: 'RDS',
};

/** One event drawn: a point, or a span from `from` (the post-create wait). */
export interface Mark {
  lane: Lane;
  at: number;
  from?: number;
  /** CSS class: what it is (`ack`, `nack`, `closed`, `refused`, `tick-skip`, …); each has its own glyph. */
  style: string;
  /** What it says on hover and in the event list. */
  label: string;
}

export function markOf(event: ProxyEvent): Mark {
  switch (event.kind) {
    case 'stream-opened':
      return { lane: 'stream', at: event.at, style: 'open', label: `stream ${event.streamId} opened` };
    case 'stream-closed':
      return event.ending.by === 'proxy'
        ? { lane: 'stream', at: event.at, style: 'closed', label: `stream ${event.streamId} closed by the proxy` }
        : {
            lane: 'stream',
            at: event.at,
            style: isRefusal(event.ending) ? 'refused' : 'closed',
            label: event.ending.shutdown
              ? `stream ${event.streamId} ended: meshdesk stopped`
              : `stream ${event.streamId} ended by meshdesk with ${event.ending.codeName}: ${event.ending.message}`,
          };
    case 'registered':
      return {
        lane: 'stream',
        at: event.at,
        style: 'registered',
        label: `registered (${event.origin === 'metadata' ? 'Dataplane from node metadata' : 'Dataplane from the API'}${event.created ? ', created' : ''})`,
      };
    case 'deregistration-scheduled':
      return { lane: 'stream', at: event.at, style: 'scheduled', label: `its Dataplane is deleted in ${formatDuration(event.dueAt - event.at)} unless it reconnects` };
    case 'deregistered':
      return { lane: 'stream', at: event.at, style: 'deregistered', label: 'deregistered: Dataplane deleted' };
    case 'restarted':
      return { lane: 'stream', at: event.at, style: 'restarted', label: `meshdesk restarted at ${formatDateTime(event.at)}: the events above are from before the restart` };
    case 'post-create-wait-started':
      return { lane: 'wait', at: event.at, style: 'wait-start', label: `post-create wait started: sleeping ${formatDuration(event.endsAt - event.at)} (the cache expiration)` };
    case 'post-create-wait':
      return { lane: 'wait', at: event.at, from: event.startedAt, style: 'wait', label: event.cause };
    case 'tick':
      return {
        lane: 'generation',
        at: event.at,
        style: `tick-${event.result}`,
        label: `generation: ${event.result} in ${formatDuration(event.durationMs)}${queuedText(event.queuedMs)}${certificateText(event.certificate)}${event.detail ? ` — ${event.detail}` : ''}`,
      };
    case 'response':
      return typeLane(event.typeUrl, event.at, 'response', `response ${shortVersion(event.version)} (${plural(event.resources, 'resource')}, nonce ${event.nonce})`);
    case 'ack':
      return typeLane(event.typeUrl, event.at, 'ack', `ACK ${shortVersion(event.version)} (nonce ${event.nonce})`);
    case 'nack':
      return typeLane(event.typeUrl, event.at, 'nack', `NACK ${shortVersion(event.version)}: ${event.error}`);
    case 'response-dropped':
      return typeLane(event.typeUrl, event.at, 'dropped', `not sent ${shortVersion(event.version)}: ${event.error}`);
  }
}

/** The wait before a generation, in words; under a millisecond it is noise, not worth a word. */
function queuedText(queuedMs: number | undefined): string {
  if (queuedMs === undefined || queuedMs < 1) return '';
  return `, after ${formatDuration(queuedMs)} waiting for its mesh's view and its turn to run`;
}

/** The identity certificate the tick issued first (mesh mTLS): the key pair and signature, timed apart from the wait. */
function certificateText(certificate: { durationMs: number } | undefined): string {
  return certificate ? `; its identity certificate was issued first, in ${formatDuration(certificate.durationMs)}` : '';
}

function typeLane(typeUrl: string, at: number, style: string, label: string): Mark {
  const type = xdsTypeOf(typeUrl);
  const lane = (XDS_TYPES as readonly string[]).includes(type) ? (type as Lane) : 'generation';
  return { lane, at, style, label };
}

/** Round tick steps for an axis `span` ms wide with about `count` ticks. */
export function axisStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-3)));
  const step = [1, 2, 5, 10].map((each) => each * power).find((each) => each >= raw);
  return step ?? 10 * power;
}
