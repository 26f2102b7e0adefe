import type { ViolationList } from '../../resources/validation-error.js';
import {
  MUST_BE_DEFINED,
  MUST_BE_DEFINED_AND_GREATER_THAN_ZERO,
  MUST_NOT_BE_EMPTY,
  checkDuration,
  checkDurationDefinedGreaterThanZero,
  checkIntegerGreaterThanZero,
  checkList,
  checkUint32,
} from '../core/conf-checks.js';
import type { PolicySpec } from '../core/policy.js';
import { GRPC_RETRY_ON, HTTP_RETRY_ON, retryOnStatusCode, type BackOff, type MeshRetryConf, type Predicate, type RateLimitedBackOff } from './api.js';
import { checkRe2 } from '../core/re2-syntax.js';
import { servedProblems, servedString } from '../core/served-value.js';

/** A `Prefix` header match is Envoy's StringMatcher.prefix, which must not be empty (Kuma writes it as given). */
const SERVED_PREFIX = servedString('envoy.type.matcher.v3.StringMatcher.prefix');

/**
 * MeshRetry's `to[].default` confs, as Kuma's validator checks them (meshretry/api/v1alpha1/validator.go).
 * Kuma roots these violations at `default.conf` (its validateDefault starts a path at "conf"), and so does meshdesk.
 */
export function validateMeshRetry(spec: PolicySpec<MeshRetryConf>, violations: ViolationList): void {
  spec.to?.forEach((item, index) => validateConf(violations, `spec.to[${index}].default.conf`, item.default ?? {}));
}

function validateConf(violations: ViolationList, path: string, conf: MeshRetryConf): void {
  const { tcp, http, grpc } = conf;
  if (tcp === undefined && http === undefined && grpc === undefined) {
    violations.add(path, "at least one of the 'tcp', 'http', 'grpc' must be specified");
  }
  if (tcp !== undefined) {
    if (tcp.maxConnectAttempt === undefined) violations.add(`${path}.tcp`, MUST_NOT_BE_EMPTY);
    else checkIntegerGreaterThanZero(tcp.maxConnectAttempt, `${path}.tcp.maxConnectAttempt`, violations);
  }
  if (http !== undefined) {
    const httpPath = `${path}.http`;
    const { backOff, retryOn, rateLimitedBackOff, hostSelection } = http;
    // hostSelectionMaxAttempts alone does not count: it only tunes hostSelection.
    const { numRetries, perTryTimeout, retriableRequestHeaders, retriableResponseHeaders } = http;
    const sections = [numRetries, perTryTimeout, backOff, retryOn, retriableRequestHeaders, retriableResponseHeaders, rateLimitedBackOff, hostSelection];
    if (sections.every((field) => field === undefined)) violations.add(httpPath, MUST_NOT_BE_EMPTY);
    validateCommon(violations, httpPath, http);
    checkUint32(http.hostSelectionMaxAttempts, `${httpPath}.hostSelectionMaxAttempts`, violations);
    if (backOff !== undefined) validateBackOff(violations, `${httpPath}.backOff`, backOff);
    // Kuma writes an HTTP back-off as given (gRPC's gets a 25 ms base): Envoy refuses one without its base.
    if (backOff?.maxInterval !== undefined && backOff.baseInterval === undefined) {
      violations.add(`${httpPath}.backOff.baseInterval`, "must be defined with maxInterval: Envoy's RetryPolicy.RetryBackOff.base_interval is required");
    }
    if (rateLimitedBackOff !== undefined) validateRateLimitedBackOff(violations, `${httpPath}.rateLimitedBackOff`, rateLimitedBackOff);
    if (retryOn !== undefined) {
      validateRetryOn(violations, `${httpPath}.retryOn`, retryOn, (entry) => Object.hasOwn(HTTP_RETRY_ON, entry) || retryOnStatusCode(entry) !== undefined);
    }
    if (hostSelection !== undefined) validateHostSelection(violations, `${httpPath}.hostSelection`, hostSelection);
    for (const field of ['retriableRequestHeaders', 'retriableResponseHeaders'] as const) {
      // Envoy refuses a header matcher without a name; Kuma leaves that to Envoy, meshdesk says where.
      checkList(http[field], `${httpPath}.${field}`, violations).forEach((header, index) => {
        if (!header?.name) violations.add(`${httpPath}.${field}[${index}].name`, MUST_BE_DEFINED);
        if (header?.type === 'RegularExpression') checkRe2(header.value, `${httpPath}.${field}[${index}].value`, violations);
        if (header?.type === 'Prefix') for (const problem of servedProblems(SERVED_PREFIX, header.value ?? '')) violations.add(`${httpPath}.${field}[${index}].value`, problem);
      });
    }
  }
  if (grpc !== undefined) {
    const grpcPath = `${path}.grpc`;
    const { numRetries, perTryTimeout, backOff, retryOn, rateLimitedBackOff } = grpc;
    if ([numRetries, perTryTimeout, backOff, retryOn, rateLimitedBackOff].every((field) => field === undefined)) {
      violations.add(grpcPath, MUST_NOT_BE_EMPTY);
    }
    validateCommon(violations, grpcPath, grpc);
    if (backOff !== undefined) validateBackOff(violations, `${grpcPath}.backOff`, backOff);
    if (rateLimitedBackOff !== undefined) validateRateLimitedBackOff(violations, `${grpcPath}.rateLimitedBackOff`, rateLimitedBackOff);
    if (retryOn !== undefined) validateRetryOn(violations, `${grpcPath}.retryOn`, retryOn, (entry) => Object.hasOwn(GRPC_RETRY_ON, entry));
  }
}

/**
 * What Kuma's JSON decoding would refuse before its validator runs: a count that is no uint32, a
 * duration that is none. meshdesk says which field, so that generation never meets one.
 */
function validateCommon(violations: ViolationList, path: string, conf: NonNullable<MeshRetryConf['grpc']>): void {
  checkUint32(conf.numRetries, `${path}.numRetries`, violations);
  checkDuration(conf.perTryTimeout, `${path}.perTryTimeout`, violations);
  checkDuration(conf.backOff?.baseInterval, `${path}.backOff.baseInterval`, violations);
  checkDuration(conf.backOff?.maxInterval, `${path}.backOff.maxInterval`, violations);
}

function validateBackOff(violations: ViolationList, path: string, backOff: BackOff): void {
  if (backOff.baseInterval === undefined && backOff.maxInterval === undefined) violations.add(path, MUST_NOT_BE_EMPTY);
}

function validateRateLimitedBackOff(violations: ViolationList, path: string, backOff: RateLimitedBackOff): void {
  if (backOff.maxInterval !== undefined) checkDurationDefinedGreaterThanZero(backOff.maxInterval, `${path}.maxInterval`, violations);
  if (backOff.resetHeaders === undefined) {
    violations.add(`${path}.resetHeaders`, MUST_BE_DEFINED);
    return;
  }
  // Kuma takes an empty list (only a missing one is refused); Envoy needs a header to read.
  if (Array.isArray(backOff.resetHeaders) && backOff.resetHeaders.length === 0) {
    violations.add(`${path}.resetHeaders`, "must have at least one item: Envoy's RetryPolicy.RateLimitedRetryBackOff.reset_headers must have at least 1 item(s) (repeated.min_items)");
  }
  checkList(backOff.resetHeaders, `${path}.resetHeaders`, violations).forEach((header, index) => {
    if (!header?.name) violations.add(`${path}.resetHeaders[${index}].name`, MUST_BE_DEFINED);
  });
}

function validateRetryOn(
  violations: ViolationList,
  path: string,
  retryOn: readonly (string | number)[],
  known: (entry: string | number) => boolean,
): void {
  checkList(retryOn, path, violations).forEach((entry, index) => {
    if (!known(entry)) violations.add(`${path}[${index}]`, `unknown item '${String(entry)}'`);
  });
}

function validateHostSelection(violations: ViolationList, path: string, predicates: readonly Predicate[]): void {
  let prioritySet = false;
  checkList(predicates, path, violations).forEach((predicate, index) => {
    const at = `${path}[${index}]`;
    switch (predicate?.predicate) {
      case 'OmitHostsWithTags':
        if (predicate!.tags === undefined) violations.add(`${at}.tags`, MUST_BE_DEFINED);
        break;
      case 'OmitPreviousPriorities':
        if (prioritySet) violations.add(`${at}.predicate`, `${predicate!.predicate} must only be specified once`);
        if (!((predicate!.updateFrequency ?? 0) > 0)) violations.add(`${at}.updateFrequency`, MUST_BE_DEFINED_AND_GREATER_THAN_ZERO);
        prioritySet = true;
        break;
      case 'OmitPreviousHosts':
        break;
      default:
        violations.add(`${at}.predicate`, `unknown predicate type '${String(predicate?.predicate)}'`);
    }
  });
}
