// MeshFaultInjection for proxyless gRPC. gRPC injects faults on the CLIENT (gRFC A33: an HTTPFault
// filter in the API listener's HttpConnectionManager), while Kuma's policy is an inbound one,
// applied by the destination's sidecar to the callers its rules name. A gRPC client calling a
// service therefore applies, on its listener for that service, the faults the service's inbound
// rules give THIS client — computed here from its tags, since gRPC's filter cannot match callers.
import { isDeepStrictEqual } from 'node:util';
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { SERVICE_TAG, type DataplaneSpec } from '../../../shared/resources.js';
import type { Endpoint } from '../../xds/context/mesh-context.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { insertHttpFiltersBeforeRouter } from '../core/listener-filters.js';
import type { PluginInput } from '../core/plugin.js';
import { reportUnapplied } from '../core/report-unapplied.js';
import { inboundKey } from '../core/rules.js';
import type { FaultInjectionConf, MeshFaultInjectionConf } from './api.js';
import { callerTags, subsetMatchesCaller } from './caller-tags.js';
import { ABORT_STATUS_OUT_OF_ENVOY_RANGE, FAULT_FILTER, HTTP_FAULT_TYPE_URL, abortApplies, delayAndAbort, delayApplies } from './fault.js';

/** A fault the destination would inject on this client's calls, with the policy items behind it. */
interface ClientFault {
  fault: FaultInjectionConf;
  /** Its index in the conf's `http` list. */
  index: number;
  origins: readonly PolicyOrigin[];
}

/** Faults on this proxy's own inbounds: a proxyless server has no sidecar to inject them, only proxyless clients do. */
export const SERVER_FAULTS_ON_CLIENTS =
  'a proxyless gRPC server injects no faults; its proxyless gRPC clients inject the faults meant for them, callers through Envoy get none';

export function applyMeshFaultInjectionToGrpc(input: PluginInput<MeshFaultInjectionConf>): void {
  const { proxy, context, resources, rules } = input;
  for (const rule of [...[...rules.from.values()].flat(), ...[...rules.inbound.values()].flat()]) {
    if ((rule.conf.http ?? []).length > 0) reportUnapplied(input, rule.origins, 'default.http', SERVER_FAULTS_ON_CLIENTS);
  }
  for (const outbound of proxy.dataplane.spec.networking.outbound ?? []) {
    const service = outbound.tags?.[SERVICE_TAG];
    const listener = service === undefined ? undefined : resources.get(LISTENER_TYPE_URL, service);
    if (service === undefined || !listener) continue;
    const perEndpoint = (context.endpointsByService.get(service) ?? []).map((endpoint) => faultsOnClient(input, endpoint));
    if (perEndpoint.length === 0 || perEndpoint.every((faults) => faults.length === 0)) continue;
    // The client picks one fault configuration per destination; endpoints that disagree cannot all be honoured.
    if (!perEndpoint.every((faults) => isDeepStrictEqual(faults.map(({ fault }) => fault), perEndpoint[0]!.map(({ fault }) => fault)))) {
      for (const { origins } of perEndpoint.flat()) {
        reportUnapplied(input, origins, 'default.http', `the endpoints of ${service} inject different faults on this client; gRPC injects faults per destination, not per endpoint`);
      }
      continue;
    }
    const faults = perEndpoint[0]!;
    faults.forEach(({ fault, origins, index }) => {
      if (fault.responseBandwidth) reportUnapplied(input, origins, `default.http[${index}].responseBandwidth`, 'gRPC does not limit response bandwidth (gRFC A33 leaves response_rate_limit out)');
      if (fault.abort && !abortApplies(fault.abort)) reportUnapplied(input, origins, `default.http[${index}].abort`, ABORT_STATUS_OUT_OF_ENVOY_RANGE);
    });
    const applied = faults.filter(({ fault }) => abortApplies(fault.abort) || delayApplies(fault.delay));
    if (applied.length === 0) continue;
    const apiListener = (listener.api_listener as ProtoJson).api_listener as ProtoJson;
    // gRPC refuses two HTTP filters of one name, which Envoy allows: each fault gets its index.
    const { hcm, index } = insertHttpFiltersBeforeRouter(
      apiListener,
      applied.map(({ fault }, at) => ({ name: `${FAULT_FILTER}.${at}`, typed_config: { '@type': HTTP_FAULT_TYPE_URL, ...delayAndAbort(fault) } })),
    );
    resources.put(
      LISTENER_TYPE_URL,
      service,
      { ...listener, api_listener: { api_listener: hcm } },
      applied.map(({ origins }, at) => ({ path: `api_listener.api_listener.http_filters[${index + at}]`, origins })),
    );
  }
}

/**
 * What the endpoint's sidecar would inject on this client's calls: with `rules` on its inbound, the
 * faults of the rules without a match (a proxyless client presents no certificate, so rules matching
 * a SPIFFE ID or an SNI never name it); else those of the legacy `from` rules its tags fall in.
 */
function faultsOnClient(input: PluginInput<MeshFaultInjectionConf>, endpoint: Endpoint): ClientFault[] {
  const { proxy, context } = input;
  const dataplane = context.dataplanesByName.get(endpoint.dataplane);
  if (!dataplane || endpoint.protocol === 'tcp') return [];
  const key = inboundKeyOf(dataplane.spec, endpoint.port);
  const rules = input.rulesOf(dataplane);
  const inboundRules = rules.inbound.get(key) ?? [];
  const applying =
    inboundRules.length > 0
      ? inboundRules.filter((rule) => rule.match === undefined)
      : (rules.from.get(key) ?? []).filter((rule) => subsetMatchesCaller(rule.subset, callerTags(proxy.dataplane.spec)));
  return applying.flatMap((rule) => (rule.conf.http ?? []).map((fault, index) => ({ fault, index, origins: rule.origins })));
}

/** The rules key of the destination's inbound on `port`. */
function inboundKeyOf({ networking }: DataplaneSpec, port: number): string {
  const inbound = networking.inbound?.find((each) => each.port === port);
  return inboundKey(inbound?.address ?? networking.address, port);
}
