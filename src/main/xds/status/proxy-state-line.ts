import type { ProxyStatus } from '../../../shared/api-types.js';
import type { ProxyEventBody } from '../../../shared/proxy-events.js';

type PostCreateWait = Extract<ProxyEventBody, { kind: 'post-create-wait' }>;

/**
 * One terminal line for a proxy's new state (headless mode prints one per change, never one per
 * tick): `proxy default.web-1 (stream 3 from 127.0.0.1:5521): refused with FAILED_PRECONDITION: …`.
 */
export function proxyStateLine(status: ProxyStatus): string {
  switch (status.state) {
    case 'connecting':
      return `${who(status)}: connected`;
    case 'waiting':
      return `${who(status)}: registered its Dataplane; meshdesk's post-create wait runs until ${clock(status.waitEndsAt ?? status.since)}`;
    case 'configured':
      return status.stale
        ? `${who(status)}: configured, but stale since ${new Date(status.stale.since).toISOString()} because ${status.stale.reason}`
        : `${who(status)}: configured`;
    case 'no-dataplane':
      return `${who(status)}: online, but no Dataplane has its node id: it gets no configuration until one is created`;
    case 'offline':
      return `${who(status)}: disconnected`;
    case 'refused': {
      const refusal = status.refusal;
      return `${who(status)}: refused with ${refusal ? `${refusal.codeName}: ${refusal.message}` : 'an error'}`;
    }
  }
}

/**
 * What headless mode prints about proxies: one line per state change, except that the end of a
 * post-create wait is one line saying how long it took (the proxy is not connected anew), and its
 * start none (the line at its end says it all).
 */
export class ProxyStateLines {
  /** The stream each connected proxy was last printed as connected on. */
  readonly #connectedStream = new Map<string, number>();

  /** The line for this state change, if it is one to print. */
  stateChanged(status: ProxyStatus): string | undefined {
    if (status.state === 'waiting') return undefined;
    if (status.state === 'offline' || status.state === 'refused') this.#connectedStream.delete(status.proxyId);
    else if (status.state === 'connecting') {
      if (this.#connectedStream.get(status.proxyId) === status.stream.id) return undefined; // the same connection, after its wait
      this.#connectedStream.set(status.proxyId, status.stream.id);
    }
    return proxyStateLine(status);
  }

  /** The line for a post-create wait that ended: how long it really took, and why. */
  postCreateWaitEnded(status: ProxyStatus, wait: PostCreateWait): string {
    return `${who(status)}: registered its Dataplane; meshdesk's post-create wait took ${seconds(wait.waitedMs)}: ${wait.cause}`;
  }
}

function who(status: ProxyStatus): string {
  return `proxy ${status.proxyId} (stream ${status.stream.id}${status.stream.peer ? ` from ${status.stream.peer}` : ''})`;
}

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(3)} s`;
}

function clock(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(11, 23);
}
