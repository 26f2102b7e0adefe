// MD0020: MeshRetry's tries cannot all fit in MeshTimeout's request timeout: Envoy's request timeout
// spans every retry, so the last tries never happen (or a single try already outlasts it).
import { proxyIdOf, type Analyzer } from '../analyzer.js';
import { FindingGroups } from '../finding-groups.js';
import { destinationTimeouts, formatMs } from '../timeout-and-retry.js';

export const retriesBeyondTimeout: Analyzer = {
  code: 'MD0020',
  severity: 'warning',
  title: "MeshRetry's perTryTimeout × (numRetries + 1) exceeds MeshTimeout's requestTimeout: the last tries never happen",
  concerns: ['MeshTimeout', 'MeshRetry'],
  analyze(context) {
    const groups = new FindingGroups();
    for (const { dataplane, destination, requestTimeout, perTryTimeout, tries } of destinationTimeouts(context)) {
      // Kuma's default retries (16s × 6 tries) outlast its default 15s and most timeouts a user writes:
      // only retries the user wrote are the user's to fit.
      if (!requestTimeout || !perTryTimeout || perTryTimeout.initial) continue;
      if (perTryTimeout.ms * tries <= requestTimeout.ms) continue;
      const retry = perTryTimeout.origin;
      const timeout = requestTimeout.origin;
      const fitting = Math.floor(requestTimeout.ms / perTryTimeout.ms);
      groups.add(`${retry.name}/${timeout.name}/${destination}`, proxyIdOf(context, dataplane.meta.name), () => ({
        code: retriesBeyondTimeout.code,
        severity: retriesBeyondTimeout.severity,
        message:
          `Traffic to ${destination}: MeshRetry ${retry.name} allows ${tries} tries of up to ${formatMs(perTryTimeout.ms)} (${formatMs(perTryTimeout.ms * tries)}), ` +
          `but MeshTimeout ${timeout.name} ends the request after ${formatMs(requestTimeout.ms)}, which spans every try: ` +
          (fitting === 0 ? 'not even the first try can run to its own timeout' : `at most ${fitting} slow ${fitting === 1 ? 'try fits' : 'tries fit'}`),
        location: { type: retry.type, mesh: retry.mesh, name: retry.name, field: `${retry.item}.${perTryTimeout.field}` },
        related: [{ type: timeout.type, mesh: timeout.mesh, name: timeout.name, field: `${timeout.item}.${requestTimeout.field}` }],
        fix: `Lower perTryTimeout to at most ${formatMs(Math.floor(requestTimeout.ms / tries))} or numRetries, or raise requestTimeout to at least ${formatMs(perTryTimeout.ms * tries)}`,
      }));
    }
    return groups.findings();
  },
};
