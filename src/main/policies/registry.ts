import type { PolicyPlugin } from './core/plugin.js';
import { meshAccessLogPlugin } from './meshaccesslog/plugin.js';
import { meshFaultInjectionPlugin } from './meshfaultinjection/plugin.js';
import { meshHealthCheckPlugin } from './meshhealthcheck/plugin.js';
import { meshHTTPRoutePlugin } from './meshhttproute/plugin.js';
import { meshLoadBalancingStrategyPlugin } from './meshloadbalancingstrategy/plugin.js';
import { meshRateLimitPlugin } from './meshratelimit/plugin.js';
import { meshTCPRoutePlugin } from './meshtcproute/plugin.js';

/**
 * Every policy plugin, the one list: the API, validation, the rules engine and the generator all
 * read it. Sorted by Kuma's plugin order, which is the order they change a proxy's config in.
 */
export const POLICY_PLUGINS: readonly PolicyPlugin[] = (
  [
    meshHTTPRoutePlugin,
    meshTCPRoutePlugin,
    meshLoadBalancingStrategyPlugin,
    meshAccessLogPlugin,
    meshFaultInjectionPlugin,
    meshRateLimitPlugin,
    meshHealthCheckPlugin,
  ] as PolicyPlugin[]
).sort((a, b) => a.descriptor.order - b.descriptor.order);
