// MD0021: MeshTimeout's stream idle timeout is shorter than its request timeout: a response that
// stays silent longer than the first is cut before the second is ever reached.
import { proxyIdOf, type Analyzer } from '../analyzer.js';
import { FindingGroups } from '../finding-groups.js';
import { destinationTimeouts, formatMs } from '../timeout-and-retry.js';

export const streamIdleBelowRequestTimeout: Analyzer = {
  code: 'MD0021',
  severity: 'info',
  title: "MeshTimeout's streamIdleTimeout is shorter than its requestTimeout: a slow response is cut by the first",
  concerns: ['MeshTimeout'],
  analyze(context) {
    const groups = new FindingGroups();
    for (const { dataplane, destination, requestTimeout, streamIdleTimeout } of destinationTimeouts(context)) {
      if (!requestTimeout || !streamIdleTimeout || (requestTimeout.initial && streamIdleTimeout.initial)) continue;
      if (streamIdleTimeout.ms >= requestTimeout.ms) continue;
      const idle = streamIdleTimeout.origin;
      const request = requestTimeout.origin;
      groups.add(`${idle.name}/${request.name}/${destination}`, proxyIdOf(context, dataplane.meta.name), () => ({
        code: streamIdleBelowRequestTimeout.code,
        severity: streamIdleBelowRequestTimeout.severity,
        message:
          `Traffic to ${destination}: MeshTimeout ${idle.name} cuts a stream silent for ${formatMs(streamIdleTimeout.ms)}, ` +
          `before the requestTimeout of ${formatMs(requestTimeout.ms)}: a response that takes longer than ${formatMs(streamIdleTimeout.ms)} to start fails with a stream idle timeout instead`,
        location: { type: idle.type, mesh: idle.mesh, name: idle.name, field: `${idle.item}.${streamIdleTimeout.field}` },
        related: idle.name === request.name ? [] : [{ type: request.type, mesh: request.mesh, name: request.name, field: `${request.item}.${requestTimeout.field}` }],
        fix: `Raise streamIdleTimeout to at least ${formatMs(requestTimeout.ms)}, or lower requestTimeout`,
      }));
    }
    return groups.findings();
  },
};
