import { SERVICE_TAG, type DataplaneResource } from '../../../shared/resources.js';
import { outboundListenerName } from '../../xds/generate/names.js';
import { DEFAULT_OUTBOUND_ADDRESS } from '../../xds/generate/outbound-proxy-generator.js';
import type { Proxy } from '../../xds/generate/proxy.js';

/** An outbound of a proxy by `kuma.io/service` (Kuma's legacy outbound), as route policies see it. */
export interface OutboundService {
  service: string;
  /** Where Envoy listens for it (`outbound:<address>:<port>`); gRPC proxies have none. */
  listener: string;
}

const byDataplane = new WeakMap<DataplaneResource, readonly OutboundService[]>();

/**
 * The proxy's tagged outbounds, as the outbound generators walk them (an address-less outbound is
 * on 127.0.0.1). Once per Dataplane object (they are immutable): every plugin walks them.
 */
export function outboundServices(proxy: Proxy): readonly OutboundService[] {
  let services = byDataplane.get(proxy.dataplane);
  if (services === undefined) {
    services = (proxy.dataplane.spec.networking.outbound ?? []).flatMap((outbound) => {
      const service = outbound.tags?.[SERVICE_TAG];
      return service === undefined ? [] : [{ service, listener: outboundListenerName(outbound.address ?? DEFAULT_OUTBOUND_ADDRESS, outbound.port) }];
    });
    byDataplane.set(proxy.dataplane, services);
  }
  return services;
}
