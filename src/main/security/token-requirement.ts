import type { SettingValues } from '../config/settings-schema.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import { ResourceNotFoundError } from '../store/errors.js';
import { meshMtls } from '../mtls/mesh-mtls.js';
import type { MeshResource } from '../../shared/resources.js';

/** `xds.dataplaneTokens`: whose proxies must send their Dataplane's token. */
export type TokenMode = SettingValues['xds.dataplaneTokens'];

/**
 * Why a proxy of `mesh` must prove it is its Dataplane, or undefined when it need not: always with
 * `enabled`, never with `disabled`, and by default (`mtls-meshes`) where mTLS is on, because there
 * the control plane sends each proxy its identity's private key. A mesh that does not exist asks
 * nothing (the proxy is refused for that anyway).
 */
export function tokenRequirement(mode: TokenMode, mesh: MeshResource | undefined): string | undefined {
  if (mode === 'enabled') return 'xds.dataplaneTokens is enabled';
  if (mode === 'disabled' || mesh === undefined || meshMtls(mesh) === undefined) return undefined;
  return `mesh "${mesh.meta.name}" has mTLS on, so its proxies are sent private keys (xds.dataplaneTokens: mtls-meshes)`;
}

/** The mesh as stored, or undefined when there is none: a token requirement reads it as it is now. */
export async function storedMesh(manager: Pick<ReadOnlyResourceManager, 'get'>, name: string): Promise<MeshResource | undefined> {
  try {
    return await manager.get('Mesh', { mesh: '', name });
  } catch (error) {
    if (error instanceof ResourceNotFoundError) return undefined;
    throw error;
  }
}
