// MD0010: with mTLS on, a proxy has an outbound to a service whose MeshTrafficPermissions deny it:
// the traffic its Dataplane says it sends will be refused at the destination.
import { SERVICE_TAG } from '../../../shared/resources.js';
import { meshMtls } from '../../mtls/mesh-mtls.js';
import { identityTags } from '../../mtls/proxy-identities.js';
import { permissionMatrix } from '../../policies/meshtrafficpermission/permission-matrix.js';
import { proxyIdOf, type Analyzer } from '../analyzer.js';
import { FindingGroups } from '../finding-groups.js';

export const deniedOutbound: Analyzer = {
  code: 'MD0010',
  severity: 'error',
  title: 'With mTLS on, a proxy has an outbound to a service that denies it: its calls will be refused',
  concerns: ['MeshTrafficPermission'],
  analyze(context) {
    if (!meshMtls(context.mesh)) return [];
    const mesh = context.mesh.meta.name;
    const matrix = permissionMatrix(context, { offset: 0, size: Number.MAX_SAFE_INTEGER });
    const cells = new Map(matrix.cells.map((cell) => [`${cell.caller}→${cell.destination}`, cell]));
    const groups = new FindingGroups();
    for (const dataplane of context.dataplanesByName.values()) {
      const callerServices = [...(identityTags(dataplane).get(SERVICE_TAG) ?? [])].sort();
      (dataplane.spec.networking.outbound ?? []).forEach((outbound, index) => {
        const destination = outbound.tags?.[SERVICE_TAG];
        if (destination === undefined || callerServices.length === 0) return;
        const verdicts = callerServices.map((caller) => cells.get(`${caller}→${destination}`));
        // A service with no inbound anywhere is not the matrix's; a caller allowed as any of its services gets through.
        if (verdicts.some((cell) => cell === undefined || cell.decision !== 'denied')) return;
        const decided = verdicts.flatMap((cell) => cell!.paths.map((path) => path.verdict));
        const reason = decided[0]?.reason ?? 'no MeshTrafficPermission allows it';
        const by = decided.find((verdict) => verdict.origin)?.origin;
        groups.add(`${destination}/${callerServices.join(',')}`, proxyIdOf(context, dataplane.meta.name), () => ({
          code: deniedOutbound.code,
          severity: deniedOutbound.severity,
          message: `${callerServices.join(', ')} has an outbound to ${destination}, and ${destination} denies it (${reason}): its calls will be refused with mTLS on`,
          location: { type: 'Dataplane', mesh, name: dataplane.meta.name, field: `networking.outbound[${index}]` },
          related: by ? [{ type: by.type, mesh: by.mesh, name: by.name, field: by.item }] : [],
          fix: `Allow ${callerServices[0]} in a MeshTrafficPermission aimed at ${destination} (targetRef kind MeshService, name ${destination}; from or rules naming ${callerServices[0]}), or remove the outbound`,
        }));
      });
    }
    return groups.findings();
  },
};
