// MD0021: MeshTimeout's stream idle timeout is shorter than its request timeout: a response that
// stays silent longer than the first is cut before the second is ever reached.
import { proxyIdOf, type Analyzer } from '../analyzer.js';
import { FindingGroups } from '../finding-groups.js';
import { destinationTimeouts, formatMs } from '../timeout-and-retry.js';

export const streamIdleBelowRequestTimeout: Analyzer = {
  code: 'MD0021',
  severity: 'info',
  title: "MeshTimeout's streamIdleTimeout is shorter than its requestTimeout: a slow response is cut by the first",
  analyze(context) {
    const groups = new FindingGroups();
    for (const found of destinationTimeouts(context)) {
      const { requestTimeoutMs, streamIdleTimeoutMs, timeout } = found;
      if (!found.userWritten || !timeout || requestTimeoutMs === undefined || streamIdleTimeoutMs === undefined) continue;
      if (streamIdleTimeoutMs >= requestTimeoutMs) continue;
      const origin = timeout.origins.at(-1)!;
      groups.add(`${origin.name}/${found.destination}`, proxyIdOf(context, found.dataplane.meta.name), () => ({
        code: streamIdleBelowRequestTimeout.code,
        severity: streamIdleBelowRequestTimeout.severity,
        message:
          `Traffic to ${found.destination}: MeshTimeout ${origin.name} cuts a stream silent for ${formatMs(streamIdleTimeoutMs)}, ` +
          `before its requestTimeout of ${formatMs(requestTimeoutMs)}: a response that takes longer than ${formatMs(streamIdleTimeoutMs)} to start fails with a stream idle timeout instead`,
        location: { type: origin.type, mesh: origin.mesh, name: origin.name, field: `${origin.item}.default.http.streamIdleTimeout` },
        related: [],
        fix: `Raise streamIdleTimeout to at least ${formatMs(requestTimeoutMs)}, or lower requestTimeout`,
      }));
    }
    return groups.findings();
  },
};
