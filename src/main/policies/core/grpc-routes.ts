import { SERVICE_TAG } from '../../../shared/resources.js';
import { ROUTE_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { routeConfigRouteNames } from './listener-parts.js';
import type { PluginInput } from './plugin.js';
import { destinationTags } from './proxy-sides.js';
import { ruleFor, type Rule } from './rules.js';

/**
 * Each outbound service of a proxyless gRPC proxy whose RouteConfiguration (named after the
 * service) is there, with the rule of each of its routes: a MeshHTTPRoute's route its own (by the
 * route's name), else the service's; undefined where none applies.
 */
export function grpcRouteRules<Conf>(input: PluginInput<Conf>): { service: string; routeRules: (Rule<Conf> | undefined)[] }[] {
  const { proxy, rules, resources } = input;
  return (proxy.dataplane.spec.networking.outbound ?? []).flatMap((outbound) => {
    const service = outbound.tags?.[SERVICE_TAG];
    const routeConfig = service === undefined ? undefined : resources.get(ROUTE_TYPE_URL, service);
    if (service === undefined || routeConfig === undefined) return [];
    const serviceRule = ruleFor(rules.to, destinationTags(service));
    const routeRules = routeConfigRouteNames(routeConfig).map((name) => ruleFor(rules.to, destinationTags(service, name)) ?? serviceRule);
    return [{ service, routeRules }];
  });
}
