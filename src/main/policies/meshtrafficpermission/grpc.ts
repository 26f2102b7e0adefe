// Placeholder until the proxyless gRPC side (gRFC A41 RBAC on xDS servers) lands: nothing is
// applied, and every rule that selects an inbound of the proxy says so.
import type { PluginInput } from '../core/plugin.js';
import { reportUnapplied } from '../core/report-unapplied.js';
import type { MeshTrafficPermissionConf } from './api.js';

const NOT_YET = 'MeshTrafficPermission is not applied to proxyless gRPC servers yet';

export function applyMeshTrafficPermissionToGrpc(input: PluginInput<MeshTrafficPermissionConf>): void {
  for (const rules of [...input.rules.from.values(), ...input.rules.inbound.values()]) {
    for (const rule of rules) reportUnapplied(input, rule.origins, 'default', NOT_YET);
  }
}
