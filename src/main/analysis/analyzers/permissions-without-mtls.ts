// MD0011: MeshTrafficPermissions in a mesh with mTLS off do nothing: no proxy checks its callers.
import type { Finding } from '../../../shared/analysis-types.js';
import { meshMtls } from '../../mtls/mesh-mtls.js';
import { policiesOf } from '../../xds/context/mesh-context.js';
import type { Analyzer } from '../analyzer.js';

export const permissionsWithoutMtls: Analyzer = {
  code: 'MD0011',
  severity: 'warning',
  title: 'MeshTrafficPermissions with mTLS off: nothing enforces them',
  concerns: ['MeshTrafficPermission'],
  analyze(context) {
    if (meshMtls(context.mesh)) return [];
    const mesh = context.mesh.meta.name;
    return policiesOf(context, 'MeshTrafficPermission').map(
      (policy): Finding => ({
        code: permissionsWithoutMtls.code,
        severity: permissionsWithoutMtls.severity,
        message: `MeshTrafficPermission ${policy.meta.name} does nothing: mesh ${mesh} has mTLS off, so no proxy knows who calls it and every call is let through`,
        location: { type: 'MeshTrafficPermission', mesh, name: policy.meta.name },
        related: [{ type: 'Mesh', mesh: '', name: mesh, field: 'spec.mtls' }],
        proxies: [],
        fix: `Turn mTLS on in mesh ${mesh} (spec.mtls.enabledBackend naming a builtin backend), then check the permission matrix`,
      }),
    );
  },
};
