import type { EnvoyResources } from '../core/envoy-resources.js';
import type { XdsTypeUrl } from '../../xds/protocol/type-urls.js';

/**
 * True when a MeshHTTPRoute rule configured this resource's routes. On an HTTP destination a
 * MeshHTTPRoute wins over a MeshTCPRoute (Kuma's getBackendRefs); MeshHTTPRoute runs first and
 * records the routes it wrote, so its attributions say which destinations it took.
 */
export function routedByMeshHTTPRoute(resources: EnvoyResources, typeUrl: XdsTypeUrl, name: string): boolean {
  return resources.setByPolicyOf(typeUrl, name, 'MeshHTTPRoute');
}
