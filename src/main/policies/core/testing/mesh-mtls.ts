// The same mesh with Kuma's builtin mTLS on (STRICT), for plugins that act only when callers have
// identities: the policy cases' meshes have it off, as Kuma's plugin tests do.
import type { MeshContext } from '../../../xds/context/mesh-context.js';

export function withBuiltinMtls(context: MeshContext): MeshContext {
  const { mesh } = context;
  return { ...context, mesh: { ...mesh, spec: { ...mesh.spec, mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] } } } };
}
