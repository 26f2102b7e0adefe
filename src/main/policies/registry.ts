import type { PolicyPlugin } from './core/plugin.js';
import { meshAccessLogPlugin } from './meshaccesslog/plugin.js';
import { meshCircuitBreakerPlugin } from './meshcircuitbreaker/plugin.js';
import { meshFaultInjectionPlugin } from './meshfaultinjection/plugin.js';
import { meshHealthCheckPlugin } from './meshhealthcheck/plugin.js';
import { meshHTTPRoutePlugin } from './meshhttproute/plugin.js';
import { meshLoadBalancingStrategyPlugin } from './meshloadbalancingstrategy/plugin.js';
import { meshRateLimitPlugin } from './meshratelimit/plugin.js';
import { meshRetryPlugin } from './meshretry/plugin.js';
import { meshTCPRoutePlugin } from './meshtcproute/plugin.js';
import { meshTimeoutPlugin } from './meshtimeout/plugin.js';
import { meshTrafficPermissionPlugin } from './meshtrafficpermission/plugin.js';

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
    meshTimeoutPlugin,
    meshHealthCheckPlugin,
    meshCircuitBreakerPlugin,
    meshRetryPlugin,
    meshTrafficPermissionPlugin,
  ] as PolicyPlugin[]
).sort((a, b) => a.descriptor.order - b.descriptor.order);
