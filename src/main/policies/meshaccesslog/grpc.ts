// MeshAccessLog for proxyless gRPC: gRPC writes no access logs (no xDS feature of gRPC reads an
// HttpConnectionManager's access_log). Every backend that would log this proxy's traffic is reported.
import { SERVICE_TAG } from '../../../shared/resources.js';
import type { PluginInput } from '../core/plugin.js';
import { reportUnapplied } from '../core/report-unapplied.js';
import { ruleFor, type Rule } from '../core/rules.js';
import type { MeshAccessLogConf } from './api.js';

const REASON = 'gRPC writes no access logs (no xDS feature of gRPC reads access_log)';

export function applyMeshAccessLogToGrpc(input: PluginInput<MeshAccessLogConf>): void {
  const { proxy, rules } = input;
  const outboundRules = new Set<Rule<MeshAccessLogConf>>();
  for (const outbound of proxy.dataplane.spec.networking.outbound ?? []) {
    const service = outbound.tags?.[SERVICE_TAG];
    const rule = service === undefined ? undefined : ruleFor(rules.to, { [SERVICE_TAG]: service });
    if (rule) outboundRules.add(rule);
  }
  for (const { conf, origins } of [...outboundRules, ...[...rules.inbound.values()].flat()]) {
    if ((conf.backends ?? []).length > 0) reportUnapplied(input, origins, 'default.backends', REASON);
  }
}
