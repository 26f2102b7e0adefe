import type { ProxyStatus } from '../../../shared/api-types.js';

/**
 * One terminal line for a proxy's new state (headless mode prints one per change, never one per
 * tick): `proxy default.web-1: refused with FAILED_PRECONDITION: …`.
 */
export function proxyStateLine(status: ProxyStatus): string {
  const who = `proxy ${status.proxyId} (stream ${status.stream.id}${status.stream.peer ? ` from ${status.stream.peer}` : ''})`;
  switch (status.state) {
    case 'connecting':
      return `${who}: connected`;
    case 'waiting':
      return `${who}: registered its Dataplane; meshdesk's post-create wait runs for ${seconds((status.waitEndsAt ?? status.since) - status.since)}`;
    case 'configured':
      return status.stale ? `${who}: configured, but stale since ${new Date(status.stale.since).toISOString()} because ${status.stale.reason}` : `${who}: configured`;
    case 'no-dataplane':
      return `${who}: online, but no Dataplane has its node id: it gets no configuration until one is created`;
    case 'offline':
      return `${who}: disconnected`;
    case 'refused': {
      const refusal = status.refusal;
      return `${who}: refused with ${refusal ? `${refusal.codeName}: ${refusal.message}` : 'an error'}`;
    }
  }
}

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(2)} s`;
}
