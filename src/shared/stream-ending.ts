import type { StreamEnding } from './proxy-events.js';

/** gRPC's UNAVAILABLE: meshdesk ends streams with it only when it stops (the proxy reconnects to the next run). */
const STOPPING = 14;

/**
 * Whether meshdesk refused the proxy: it ended the stream with an error status other than its own
 * stop's UNAVAILABLE, which says nothing about the proxy. The status tracker, the first-config
 * bar and the timeline read endings by this one rule.
 */
export function isRefusal(ending: StreamEnding | undefined): ending is Extract<StreamEnding, { by: 'control-plane' }> {
  return ending?.by === 'control-plane' && ending.code !== 0 && ending.code !== STOPPING;
}
