// MD0020: MeshRetry's tries cannot all fit in MeshTimeout's request timeout: Envoy's request timeout
// spans every retry, so the last tries never happen (or a single try already outlasts it).
import { proxyIdOf, type Analyzer } from '../analyzer.js';
import { FindingGroups } from '../finding-groups.js';
import { destinationTimeouts, formatMs } from '../timeout-and-retry.js';

export const retriesBeyondTimeout: Analyzer = {
  code: 'MD0020',
  severity: 'warning',
  title: "MeshRetry's perTryTimeout × (numRetries + 1) exceeds MeshTimeout's requestTimeout: the last tries never happen",
  analyze(context) {
    const groups = new FindingGroups();
    for (const found of destinationTimeouts(context)) {
      const { requestTimeoutMs, perTryTimeoutMs, retrySection, timeout, retry } = found;
      const tries = (retrySection?.numRetries ?? 0) + 1;
      if (!found.userWritten || requestTimeoutMs === undefined || perTryTimeoutMs === undefined || !timeout || !retry) continue;
      if (perTryTimeoutMs * tries <= requestTimeoutMs) continue;
      const retryOrigin = retry.origins.at(-1)!;
      const timeoutOrigin = timeout.origins.at(-1)!;
      const fitting = Math.floor(requestTimeoutMs / perTryTimeoutMs);
      groups.add(`${retryOrigin.name}/${timeoutOrigin.name}/${found.destination}`, proxyIdOf(context, found.dataplane.meta.name), () => ({
        code: retriesBeyondTimeout.code,
        severity: retriesBeyondTimeout.severity,
        message:
          `Traffic to ${found.destination}: MeshRetry ${retryOrigin.name} allows ${tries} tries of up to ${formatMs(perTryTimeoutMs)} (${formatMs(perTryTimeoutMs * tries)}), ` +
          `but MeshTimeout ${timeoutOrigin.name} ends the request after ${formatMs(requestTimeoutMs)}, which spans every try: ` +
          (fitting === 0 ? 'not even the first try can run to its own timeout' : `at most ${fitting} slow ${fitting === 1 ? 'try fits' : 'tries fit'}`),
        location: { type: retryOrigin.type, mesh: retryOrigin.mesh, name: retryOrigin.name, field: `${retryOrigin.item}.default.${found.retrySectionName}.perTryTimeout` },
        related: [{ type: timeoutOrigin.type, mesh: timeoutOrigin.mesh, name: timeoutOrigin.name, field: `${timeoutOrigin.item}.default.http.requestTimeout` }],
        fix: `Lower perTryTimeout to at most ${formatMs(Math.floor(requestTimeoutMs / tries))} or numRetries, or raise requestTimeout to at least ${formatMs(perTryTimeoutMs * tries)}`,
      }));
    }
    return groups.findings();
  },
};
