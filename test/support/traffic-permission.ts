import type { Core } from '../../src/main/core.js';

/**
 * Kuma's allow-all MeshTrafficPermission on the mesh: with mTLS on, a mesh without any permission
 * denies every call (Kuma's default), so tests of mTLS itself allow everyone first.
 */
export async function allowAllTraffic(core: Core, mesh = 'default'): Promise<void> {
  const spec = { targetRef: { kind: 'Mesh' }, from: [{ targetRef: { kind: 'Mesh' }, default: { action: 'Allow' } }] };
  const response = await fetch(`${core.api.url}/meshes/${mesh}/meshtrafficpermissions/allow-all`, {
    method: 'PUT',
    body: JSON.stringify({ type: 'MeshTrafficPermission', mesh, name: 'allow-all', spec }),
  });
  if (!response.ok) throw new Error(`PUT allow-all answered ${response.status}: ${await response.text()}`);
}
