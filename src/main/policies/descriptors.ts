import { meshHTTPRouteDescriptor } from './meshhttproute/descriptor.js';
import { meshTCPRouteDescriptor } from './meshtcproute/descriptor.js';
import { meshLoadBalancingStrategyDescriptor } from './meshloadbalancingstrategy/descriptor.js';
import { meshAccessLogDescriptor } from './meshaccesslog/descriptor.js';
import { meshFaultInjectionDescriptor } from './meshfaultinjection/descriptor.js';
import { meshRateLimitDescriptor } from './meshratelimit/descriptor.js';
import { meshTimeoutDescriptor } from './meshtimeout/descriptor.js';
import { meshTrafficPermissionDescriptor } from './meshtrafficpermission/descriptor.js';
import { meshHealthCheckDescriptor } from './meshhealthcheck/descriptor.js';
import { meshCircuitBreakerDescriptor } from './meshcircuitbreaker/descriptor.js';
import { meshRetryDescriptor } from './meshretry/descriptor.js';
import type { PolicyDescriptor } from './core/plugin.js';

/** Every policy type's descriptor, in Kuma's plugin order: the API, validation and the rules engine read it. */
export const POLICY_DESCRIPTORS: readonly PolicyDescriptor[] = [
  meshHTTPRouteDescriptor,
  meshTCPRouteDescriptor,
  meshLoadBalancingStrategyDescriptor,
  meshAccessLogDescriptor,
  meshFaultInjectionDescriptor,
  meshRateLimitDescriptor,
  meshTimeoutDescriptor,
  meshTrafficPermissionDescriptor,
  meshHealthCheckDescriptor,
  meshCircuitBreakerDescriptor,
  meshRetryDescriptor,
];
