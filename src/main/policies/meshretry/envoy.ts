import type { Protocol } from '../../../shared/resources.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { goDurationToProtoJson } from '../../resources/go-duration.js';
import type { Draft } from '../core/draft.js';
import { httpConnectionManagers, inlineRouteNames, inlineRoutes, tcpProxies } from '../core/listener-parts.js';
import type { PluginInput } from '../core/plugin.js';
import { destinationTags, outboundSides } from '../core/proxy-sides.js';
import { ruleFor, type Rule } from '../core/rules.js';
import { keyOf, putEdited, type FieldsSet } from '../core/shared-edits.js';
import {
  HTTP_METHOD_PREFIX,
  HTTP_RETRY_ON,
  GRPC_RETRY_ON,
  retryOnStatusCode,
  type HeaderMatch,
  type MeshRetryConf,
  type Predicate,
  type RateLimitedBackOff,
} from './api.js';

type HttpConf = NonNullable<MeshRetryConf['http']>;
type GrpcConf = NonNullable<MeshRetryConf['grpc']>;

/** Envoy's retry conditions when a conf lists none (Kuma's HttpRetryOnDefault, GrpcRetryOnDefault). */
const HTTP_RETRY_ON_DEFAULT = 'gateway-error,connect-failure,refused-stream';
const GRPC_RETRY_ON_DEFAULT = 'cancelled,connect-failure,gateway-error,refused-stream,reset,resource-exhausted,unavailable';
const RETRIABLE_STATUS_CODES = 'retriable-status-codes';
/** Kuma's DefaultBaseInterval, for a gRPC backOff that gives only its maximum. */
const DEFAULT_BASE_INTERVAL = '0.025s';

/**
 * Kuma's MeshRetry plugin (meshretry/plugin/v1alpha1/plugin.go, plugin/xds/configurer.go) on a
 * sidecar's kuma.io/service outbounds: tcp_proxy connect attempts for tcp destinations, a retry
 * policy on each route of http and grpc destinations (a MeshHTTPRoute's routes by their own rule).
 */
export function applyMeshRetryToEnvoy(input: PluginInput<MeshRetryConf>): void {
  const { proxy, context, rules, resources } = input;
  for (const side of outboundSides(proxy, context)) {
    const listener = resources.get(LISTENER_TYPE_URL, side.listener);
    if (listener === undefined) continue;
    const serviceRule = ruleFor(rules.to, destinationTags(side.service));
    const routeRules = inlineRouteNames(listener).map((name) => (name === undefined ? undefined : ruleFor(rules.to, destinationTags(side.service, name))));
    if (serviceRule === undefined && routeRules.every((rule) => rule === undefined)) continue;
    const key = ['MeshRetry outbound listener', side.protocol, keyOf(serviceRule), ...routeRules.map(keyOf)];
    putEdited(resources, LISTENER_TYPE_URL, side.listener, key, (draft) => configureListener(draft, side.protocol, serviceRule, routeRules));
  }
}

/** Kuma's DeprecatedConfigurer.ConfigureListener: connect attempts on a tcp destination's tcp_proxy, else retry policies on the routes. */
function configureListener(
  listener: Draft,
  protocol: Protocol,
  serviceRule: Rule<MeshRetryConf> | undefined,
  routeRules: readonly (Rule<MeshRetryConf> | undefined)[],
): FieldsSet | undefined {
  const set: FieldsSet = [];
  const maxConnectAttempt = serviceRule?.conf.tcp?.maxConnectAttempt;
  if (protocol === 'tcp' && serviceRule && maxConnectAttempt !== undefined) {
    for (const tcpProxy of tcpProxies(listener)) {
      tcpProxy.value.max_connect_attempts = maxConnectAttempt;
      set.push({ path: `${tcpProxy.path}.max_connect_attempts`, origins: serviceRule.origins });
    }
  }
  const defaultPolicy = serviceRule && retryPolicy(serviceRule.conf, protocol);
  httpConnectionManagers(listener)
    .flatMap(inlineRoutes)
    .forEach((route, index) => {
      // A route's own rule wins; without one (or when it makes no retry policy), the service's applies.
      const routeRule = routeRules[index];
      const own = routeRule && retryPolicy(routeRule.conf, protocol);
      const [policy, origins] = own ? [own, routeRule.origins] : [defaultPolicy, serviceRule?.origins];
      const action = route.value.route as Draft | undefined;
      if (policy === undefined || origins === undefined || action === undefined) return;
      action.retry_policy = policy;
      set.push({ path: `${route.path}.route.retry_policy`, origins });
    });
  return set.length > 0 ? set : undefined;
}

/** Kuma's GetRouteRetryConfig: only http and grpc destinations get one (http2 none); `numRetries: 0` means no retries. */
function retryPolicy(conf: MeshRetryConf, protocol: Protocol): ProtoJson | undefined {
  if (protocol === 'http' && conf.http) return httpRetryPolicy(conf.http);
  if (protocol === 'grpc' && conf.grpc) return grpcRetryPolicy(conf.grpc);
  return undefined;
}

function grpcRetryPolicy(conf: GrpcConf): ProtoJson | undefined {
  if (conf.numRetries === 0) return undefined;
  const retryOn = (conf.retryOn ?? []).map((entry) => GRPC_RETRY_ON[String(entry)]!).join(',');
  return {
    retry_on: retryOn || GRPC_RETRY_ON_DEFAULT,
    ...(conf.numRetries !== undefined && { num_retries: conf.numRetries }),
    ...(conf.perTryTimeout !== undefined && { per_try_timeout: goDurationToProtoJson(conf.perTryTimeout) }),
    ...(conf.backOff && {
      retry_back_off: {
        base_interval: conf.backOff.baseInterval === undefined ? DEFAULT_BASE_INTERVAL : goDurationToProtoJson(conf.backOff.baseInterval),
        ...(conf.backOff.maxInterval !== undefined && { max_interval: goDurationToProtoJson(conf.backOff.maxInterval) }),
      },
    }),
    ...(conf.rateLimitedBackOff && { rate_limited_retry_back_off: rateLimitedRetryBackOff(conf.rateLimitedBackOff) }),
  };
}

function httpRetryPolicy(conf: HttpConf): ProtoJson | undefined {
  if (conf.numRetries === 0) return undefined;
  // Kuma's splitRetryOn: status codes, HTTP methods and Envoy conditions are three different fields.
  const statusCodes: number[] = [];
  const methods: string[] = [];
  const conditions: string[] = [];
  for (const entry of conf.retryOn ?? []) {
    const code = retryOnStatusCode(entry);
    if (code !== undefined) statusCodes.push(code);
    else if (String(entry).startsWith(HTTP_METHOD_PREFIX)) methods.push(HTTP_RETRY_ON[String(entry)]!);
    else conditions.push(HTTP_RETRY_ON[String(entry)]!);
  }
  let retryOn = conditions.length > 0 ? conditions.join(',') : HTTP_RETRY_ON_DEFAULT;
  if (statusCodes.length > 0 && !retryOn.split(',').includes(RETRIABLE_STATUS_CODES)) retryOn = `${retryOn},${RETRIABLE_STATUS_CODES}`;
  const requestHeaders = [
    ...methods.map((method) => ({ name: ':method', string_match: { exact: method } })),
    ...(conf.retriableRequestHeaders ?? []).map(headerMatcher),
  ];
  const responseHeaders = (conf.retriableResponseHeaders ?? []).map(headerMatcher);
  return {
    retry_on: retryOn,
    ...(conf.numRetries !== undefined && { num_retries: conf.numRetries }),
    ...(conf.perTryTimeout !== undefined && { per_try_timeout: goDurationToProtoJson(conf.perTryTimeout) }),
    ...(conf.backOff && {
      retry_back_off: {
        ...(conf.backOff.baseInterval !== undefined && { base_interval: goDurationToProtoJson(conf.backOff.baseInterval) }),
        ...(conf.backOff.maxInterval !== undefined && { max_interval: goDurationToProtoJson(conf.backOff.maxInterval) }),
      },
    }),
    ...(conf.rateLimitedBackOff && { rate_limited_retry_back_off: rateLimitedRetryBackOff(conf.rateLimitedBackOff) }),
    ...(statusCodes.length > 0 && { retriable_status_codes: statusCodes }),
    ...(requestHeaders.length > 0 && { retriable_request_headers: requestHeaders }),
    ...(responseHeaders.length > 0 && { retriable_headers: responseHeaders }),
    ...(conf.hostSelection && hostSelection(conf.hostSelection)),
    // int64: a string in proto3 JSON.
    ...(conf.hostSelectionMaxAttempts !== undefined && { host_selection_retry_max_attempts: String(conf.hostSelectionMaxAttempts) }),
  };
}

function rateLimitedRetryBackOff(backOff: RateLimitedBackOff): ProtoJson {
  return {
    reset_headers: (backOff.resetHeaders ?? []).map(({ name, format }) => ({
      name,
      format: format === 'UnixTimestamp' ? 'UNIX_TIMESTAMP' : 'SECONDS',
    })),
    ...(backOff.maxInterval !== undefined && { max_interval: goDurationToProtoJson(backOff.maxInterval) }),
  };
}

/** Kuma's configureHostSelectionPredicates: host predicates, and OmitPreviousPriorities as the retry priority. */
function hostSelection(predicates: readonly Predicate[]): ProtoJson {
  const hostPredicates: ProtoJson[] = [];
  let priority: ProtoJson | undefined;
  for (const predicate of predicates) {
    if (predicate.predicate === 'OmitPreviousHosts') {
      hostPredicates.push({
        name: 'envoy.retry_host_predicates.previous_hosts',
        typed_config: { '@type': 'type.googleapis.com/envoy.extensions.retry.host.previous_hosts.v3.PreviousHostsPredicate' },
      });
    } else if (predicate.predicate === 'OmitHostsWithTags') {
      hostPredicates.push({
        name: 'envoy.retry_host_predicates.omit_host_metadata',
        typed_config: {
          '@type': 'type.googleapis.com/envoy.extensions.retry.host.omit_host_metadata.v3.OmitHostMetadataConfig',
          metadata_match: { filter_metadata: { 'envoy.lb': { ...predicate.tags } } },
        },
      });
    } else {
      priority = {
        name: 'envoy.retry_priorities.previous_priorities',
        typed_config: {
          '@type': 'type.googleapis.com/envoy.extensions.retry.priority.previous_priorities.v3.PreviousPrioritiesConfig',
          update_frequency: predicate.updateFrequency ?? 0,
        },
      };
    }
  }
  return { ...(hostPredicates.length > 0 && { retry_host_predicate: hostPredicates }), ...(priority && { retry_priority: priority }) };
}

/** Kuma's headerMatcher: a HeaderMatch as Envoy's HeaderMatcher. */
function headerMatcher({ type = 'Exact', name, value = '' }: HeaderMatch): ProtoJson {
  switch (type) {
    case 'RegularExpression':
      return { name, string_match: { safe_regex: { regex: value } } };
    case 'Prefix':
      return { name, string_match: { prefix: value } };
    case 'Present':
      return { name, present_match: true };
    case 'Absent':
      return { name, present_match: false };
    default:
      return { name, string_match: { exact: value } };
  }
}
