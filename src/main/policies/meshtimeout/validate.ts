import type { ViolationList } from '../../resources/validation-error.js';
import { checkAbsent, checkDurationGreaterThanZero, checkDurationNotNegative } from '../core/conf-checks.js';
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
  checkAbsent(conf.connectionTimeout, `${path}.connectionTimeout`, violations, UNDER_SPIFFE_ID);
  checkAbsent(conf.idleTimeout, `${path}.idleTimeout`, violations, UNDER_SPIFFE_ID);
  if (conf.http === undefined) return;
  checkAbsent(conf.http.requestHeadersTimeout, `${path}.http.requestHeadersTimeout`, violations, UNDER_SPIFFE_ID);
  checkAbsent(conf.http.maxStreamDuration, `${path}.http.maxStreamDuration`, violations, UNDER_SPIFFE_ID);
  checkAbsent(conf.http.maxConnectionDuration, `${path}.http.maxConnectionDuration`, violations, UNDER_SPIFFE_ID);
}

function validateDefault(violations: ViolationList, path: string, conf: MeshTimeoutPolicyConf | undefined, topLevel: TargetRefKind): void {
  const { connectionTimeout, idleTimeout, http } = conf ?? {};
  if (connectionTimeout === undefined && idleTimeout === undefined && http === undefined) {
    violations.add(path, 'at least one timeout should be configured');
    return;
  }
  if (topLevel === 'MeshHTTPRoute') {
    // A route's timeouts are per request; connections belong to the cluster, which routes share.
    checkAbsent(connectionTimeout, `${path}.connectionTimeout`, violations, UNDER_ROUTE);
    checkAbsent(idleTimeout, `${path}.idleTimeout`, violations, UNDER_ROUTE);
    if (http !== undefined) {
      checkAbsent(http.maxStreamDuration, `${path}.http.maxStreamDuration`, violations, UNDER_ROUTE);
      checkAbsent(http.maxConnectionDuration, `${path}.http.maxConnectionDuration`, violations, UNDER_ROUTE);
    }
  }
  checkDurationGreaterThanZero(connectionTimeout, `${path}.connectionTimeout`, violations);
  checkDurationNotNegative(idleTimeout, `${path}.idleTimeout`, violations);
  if (http === undefined) return;
  const httpPath = `${path}.http`;
  const { requestTimeout, streamIdleTimeout, maxStreamDuration, maxConnectionDuration, requestHeadersTimeout } = http;
  if ([requestTimeout, streamIdleTimeout, maxStreamDuration, maxConnectionDuration].every((value) => value === undefined)) {
    violations.add(httpPath, 'at least one timeout in this section should be configured');
  }
  checkDurationNotNegative(requestTimeout, `${httpPath}.requestTimeout`, violations);
  checkDurationNotNegative(streamIdleTimeout, `${httpPath}.streamIdleTimeout`, violations);
  checkDurationNotNegative(maxStreamDuration, `${httpPath}.maxStreamDuration`, violations);
  checkDurationNotNegative(maxConnectionDuration, `${httpPath}.maxConnectionDuration`, violations);
  checkDurationNotNegative(requestHeadersTimeout, `${httpPath}.requestHeadersTimeout`, violations);
}
