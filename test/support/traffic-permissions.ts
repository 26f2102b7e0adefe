import type { Core } from '../../src/main/core.js';
import { putResource } from './put-resource.js';

/**
 * Applies the allow-all MeshTrafficPermission a Kuma user writes when they turn mTLS on and
 * permissions are not what they are after: with mTLS on, a caller no permission names is denied.
 */
export async function allowAllTraffic(core: Core, mesh = 'default'): Promise<void> {
  const permission = {
    type: 'MeshTrafficPermission',
    mesh,
    name: 'allow-all',
    spec: { targetRef: { kind: 'Mesh' }, from: [{ targetRef: { kind: 'Mesh' }, default: { action: 'Allow' } }] },
  };
  await putResource(core.api.url, `/meshes/${mesh}/meshtrafficpermissions/allow-all`, permission);
}
