// A proxy's outbounds and inbounds as policy plugins find their Envoy resources (Kuma's
// GatherListeners / GatherClusters for kuma.io/service outbounds and legacy inbound names).
import { SERVICE_TAG, type DataplaneResource, type Protocol, type Tags } from '../../../shared/resources.js';
import { protocolFromTags } from '../../xds/context/build-mesh-context.js';
import type { MeshContext } from '../../xds/context/mesh-context.js';
import { memoizedForContext } from '../../xds/generate/context-memo.js';
import { inboundListenerName, localClusterName } from '../../xds/generate/names.js';
import { serviceProtocol } from '../../xds/context/mesh-context.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import { outboundServices } from './outbound-services.js';
import { inboundKey, type InboundKey } from './rules.js';

/**
 * The tag Kuma adds to a `to` rule whose targetRef is a MeshHTTPRoute: the conf then applies only
 * to that route's Envoy routes, which are named by the same hash.
 */
export const RULE_MATCHES_HASH_TAG = '__rule-matches-hash__';

/** A destination a proxy reaches through an outbound listener. */
export interface OutboundSide {
  service: string;
  listener: string;
  protocol: Protocol;
}

/** Every kuma.io/service outbound of the proxy, with the protocol its service speaks; once per context and Dataplane object. */
export function outboundSides(proxy: Proxy, context: MeshContext): readonly OutboundSide[] {
  const byDataplane = memoizedForContext(context, 'outbound-sides', () => new WeakMap<DataplaneResource, readonly OutboundSide[]>());
  let sides = byDataplane.get(proxy.dataplane);
  if (sides === undefined) {
    sides = outboundServices(proxy).map(({ service, listener }) => ({
      service,
      listener,
      protocol: serviceProtocol(context, service),
    }));
    byDataplane.set(proxy.dataplane, sides);
  }
  return sides;
}

/** The tags a destination (or one of its routes, by name) is matched by in `to` rules. */
export function destinationTags(service: string, routeName?: string): Tags {
  return routeName === undefined ? { [SERVICE_TAG]: service } : { [SERVICE_TAG]: service, [RULE_MATCHES_HASH_TAG]: routeName };
}

/** An inbound of the proxy: the key its rules are under, its listener and its application's cluster. */
export interface InboundSide {
  key: InboundKey;
  listener: string;
  cluster: string;
  protocol: Protocol;
}

/** Every tagged inbound of the proxy (the ones the inbound generator serves). */
export function inboundSides(proxy: Proxy): InboundSide[] {
  const { networking } = proxy.dataplane.spec;
  return (networking.inbound ?? []).flatMap((inbound) => {
    const tags = inbound.tags ?? {};
    if (tags[SERVICE_TAG] === undefined) return [];
    const address = inbound.address ?? networking.address;
    return [
      {
        key: inboundKey(address, inbound.port),
        listener: inboundListenerName(address, inbound.port),
        cluster: localClusterName(inbound.servicePort ?? inbound.port),
        protocol: protocolFromTags(tags),
      },
    ];
  });
}
