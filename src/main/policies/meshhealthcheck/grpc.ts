import { SERVICE_TAG } from '../../../shared/resources.js';
import type { PluginInput } from '../core/plugin.js';
import { outboundServiceNames } from '../core/outbound-targets.js';
import { ruleFor } from '../core/rules.js';
import type { MeshHealthCheckConf } from './api.js';

/**
 * Proxyless gRPC: nothing applies. gRPC's xDS clients read no `health_checks` and no
 * `common_lb_config` from a Cluster (gRFC A27 lists what they read); they learn an endpoint's
 * health only from the EDS health status a control plane sends. Each `to` item that reaches one of
 * the proxy's services is reported once.
 */
export function applyMeshHealthCheckToGrpc({ proxy, rules, unapplied }: PluginInput<MeshHealthCheckConf>): void {
  const reported = new Set<string>();
  for (const service of outboundServiceNames(proxy)) {
    for (const origin of ruleFor(rules.to, { [SERVICE_TAG]: service })?.origins ?? []) {
      const key = `${origin.mesh}/${origin.name}/${origin.item}`;
      if (reported.has(key)) continue;
      reported.add(key);
      unapplied({
        policy: { type: origin.type, name: origin.name },
        field: `${origin.item}.default`,
        reason: 'gRPC clients do not run active health checks from xDS (no Cluster health_checks or common_lb_config in gRFC A27)',
      });
    }
  }
}
