import type { ViolationList } from '../../resources/validation-error.js';
import { durationGreaterThanZeroOrNil, durationNotNegativeOrNil, mustBeAbsent } from '../core/conf-checks.js';
import type { PolicySpec } from '../core/policy.js';
import type { TargetRefKind } from '../core/target-ref.js';
import type { MeshTimeoutPolicyConf } from './api.js';

const UNDER_ROUTE = "can't be specified when top-level TargetRef is referencing MeshHTTPRoute";
const UNDER_SPIFFE_ID = "can't be specified when matches contain spiffeID because this field cannot be conditioned on source identity";

/**
 * MeshTimeout's `default` confs, as Kuma's validator checks them (meshtimeout/api/v1alpha1/validator.go),
 * in its order: every `from`, every `to`, every rule. `from` is not looked at under a MeshHTTPRoute
 * or MeshGateway top level: the shared checks refuse it there.
 */
export function validateMeshTimeout(spec: PolicySpec<MeshTimeoutPolicyConf>, violations: ViolationList): void {
  const topLevel = spec.targetRef?.kind ?? 'Mesh';
  if (topLevel !== 'MeshHTTPRoute' && topLevel !== 'MeshGateway') {
    spec.from?.forEach((item, index) => validateDefault(violations, `spec.from[${index}].default`, item.default, topLevel));
  }
  spec.to?.forEach((item, index) => validateDefault(violations, `spec.to[${index}].default`, item.default, topLevel));
  spec.rules?.forEach((rule, index) => {
    const path = `spec.rules[${index}].default`;
    if (rule.matches?.some((match) => match.spiffeID !== undefined)) validateSourceConditioned(violations, path, rule.default ?? {});
    validateDefault(violations, path, rule.default, topLevel);
  });
}

/** A rule matching callers by identity can condition only what Envoy decides per request. */
function validateSourceConditioned(violations: ViolationList, path: string, conf: MeshTimeoutPolicyConf): void {
  mustBeAbsent(violations, `${path}.connectionTimeout`, conf.connectionTimeout, UNDER_SPIFFE_ID);
  mustBeAbsent(violations, `${path}.idleTimeout`, conf.idleTimeout, UNDER_SPIFFE_ID);
  if (conf.http === undefined) return;
  mustBeAbsent(violations, `${path}.http.requestHeadersTimeout`, conf.http.requestHeadersTimeout, UNDER_SPIFFE_ID);
  mustBeAbsent(violations, `${path}.http.maxStreamDuration`, conf.http.maxStreamDuration, UNDER_SPIFFE_ID);
  mustBeAbsent(violations, `${path}.http.maxConnectionDuration`, conf.http.maxConnectionDuration, UNDER_SPIFFE_ID);
}

function validateDefault(violations: ViolationList, path: string, conf: MeshTimeoutPolicyConf | undefined, topLevel: TargetRefKind): void {
  const { connectionTimeout, idleTimeout, http } = conf ?? {};
  if (connectionTimeout === undefined && idleTimeout === undefined && http === undefined) {
    violations.add(path, 'at least one timeout should be configured');
    return;
  }
  if (topLevel === 'MeshHTTPRoute') {
    // A route's timeouts are per request; connections belong to the cluster, which routes share.
    mustBeAbsent(violations, `${path}.connectionTimeout`, connectionTimeout, UNDER_ROUTE);
    mustBeAbsent(violations, `${path}.idleTimeout`, idleTimeout, UNDER_ROUTE);
    if (http !== undefined) {
      mustBeAbsent(violations, `${path}.http.maxStreamDuration`, http.maxStreamDuration, UNDER_ROUTE);
      mustBeAbsent(violations, `${path}.http.maxConnectionDuration`, http.maxConnectionDuration, UNDER_ROUTE);
    }
  }
  durationGreaterThanZeroOrNil(violations, `${path}.connectionTimeout`, connectionTimeout);
  durationNotNegativeOrNil(violations, `${path}.idleTimeout`, idleTimeout);
  if (http === undefined) return;
  const httpPath = `${path}.http`;
  const { requestTimeout, streamIdleTimeout, maxStreamDuration, maxConnectionDuration, requestHeadersTimeout } = http;
  if ([requestTimeout, streamIdleTimeout, maxStreamDuration, maxConnectionDuration].every((value) => value === undefined)) {
    violations.add(httpPath, 'at least one timeout in this section should be configured');
  }
  durationNotNegativeOrNil(violations, `${httpPath}.requestTimeout`, requestTimeout);
  durationNotNegativeOrNil(violations, `${httpPath}.streamIdleTimeout`, streamIdleTimeout);
  durationNotNegativeOrNil(violations, `${httpPath}.maxStreamDuration`, maxStreamDuration);
  durationNotNegativeOrNil(violations, `${httpPath}.maxConnectionDuration`, maxConnectionDuration);
  durationNotNegativeOrNil(violations, `${httpPath}.requestHeadersTimeout`, requestHeadersTimeout);
}
