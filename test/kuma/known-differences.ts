// Every place meshdesk knowingly differs from Kuma v2.14.3's golden data (../shared/kuma-cases), in one
// list for all areas, with the reason. `case` is the id of a golden case (`<file>: <name>`) where one
// shows the difference, '*' for every case of the area, else the kind of input it is about. The
// conformance tests (test/kuma/) fail on any difference not listed here, and on an entry that no
// longer matches anything, so this list stays the truth. What a case itself puts out of scope (its
// case.json, mTLS, transparent proxying…) is not listed: see test/kuma/support/xds-cases.ts. In the
// 'policies' area `case` may be `<policy>/*`, every golden case of one policy.

export type ConformanceArea = 'validation' | 'policy-validation' | 'api' | 'xds-names' | 'xds-structure' | 'xds-e2e' | 'policies';

export interface KnownDifference {
  area: ConformanceArea;
  case: string;
  reason: string;
  /** xDS and policies areas: a regex on the resource name; every resource when absent. */
  resource?: string;
  /** xDS and policies areas: a regex on the leaf path (see test/kuma/support/xds-leaves.ts); every leaf when absent. */
  path?: string;
  /** API area: the status meshdesk answers where it is not Kuma's (a request Kuma accepts and meshdesk refuses). */
  status?: number;
}

/**
 * Kuma's MeshHTTPRoute validator cases with a `to` item without `rules`, or a rule without `matches` or
 * `default`: Kuma's Go test hands them to Validate() directly, but through Kuma's API its OpenAPI schema
 * refuses them first (`spec.to[0].rules[0].matches in body is required`) and answers that alone.
 * meshdesk checks the schema as Kuma's API does.
 */
const ROUTE_RULES_KUMA_SCHEMA_REFUSES = [
  'meshhttproute[4]: spec.to.targetRef error',
  'meshhttproute[5]: spec.to.targetRef Mesh not allowed',
  'meshhttproute[6]: incorrect path match value',
  'meshhttproute[7]: repeated match query param names',
  'meshhttproute[8]: empty filter',
  'meshhttproute[9]: invalid HeaderModifier filter',
  'meshhttproute[11]: non-empty value for header present/absent match',
];

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  ...ROUTE_RULES_KUMA_SCHEMA_REFUSES.map((name) => ({
    area: 'policy-validation' as const,
    case: name,
    reason: "A `to` item without `rules`, or a rule without `matches` or `default`, which Kuma's API schema refuses before its validator runs (the case calls the validator directly); meshdesk answers as Kuma's API.",
  })),
  {
    area: 'policy-validation',
    case: 'meshtcproute[3]: accepts MeshGateway with listener tags targeted route',
    reason:
      "The case writes a tag value as a YAML number (`port: 6000`), which Kuma's test reads into a Go string with " +
      "sigs.k8s.io/yaml; meshdesk refuses a number where a string belongs, naming the field, as for Dataplane tags " +
      '(see "a field of the wrong JSON type" below). Quoted (`port: "6000"`), it is accepted.',
  },
  {
    area: 'validation',
    case: 'an unknown field anywhere in a Mesh or Dataplane',
    reason:
      "Kuma's protobuf JSON unmarshaller runs with AllowUnknownFields and drops it silently; meshdesk refuses it " +
      "('unknown field' at its path), because a dropped typo would silently change what a proxy gets. Kuma's own " +
      'output (kumactl get, GET, the kumactl apply body with kri and times) holds no unknown field and is accepted.',
  },
  {
    area: 'validation',
    case: 'two inbounds or outbounds of one Dataplane on the same address and port',
    reason:
      'Kuma accepts the Dataplane and Envoy then rejects the whole configuration it is sent; meshdesk refuses it ' +
      'when it is written (resources/listener-clash.ts), after all of Kuma\'s rules passed.',
  },
  {
    area: 'validation',
    case: 'a Mesh mTLS backend whose dpCert.rotation.expiration is below one minute',
    reason:
      'Kuma only checks that the duration parses; at 1s every proxy needs a new RSA key every 0.8 s for as long as ' +
      'the mesh exists, and a gRPC proxy (re-reading its files every 10s) holds an expired certificate. meshdesk ' +
      'refuses less than 1m at the field (resources/cert-lifetime-floor.ts), after all of Kuma\'s rules passed.',
  },
  {
    area: 'validation',
    case: 'a field of the wrong JSON type (a string for a port, a number for a tag value)',
    reason:
      'Kuma answers 400 "invalid Dataplane object: json: cannot unmarshal …" without a field; meshdesk names the ' +
      'field and what it must be. Accepted and refused alike.',
  },
  {
    area: 'validation',
    case: 'an enum given as a number outside the enum',
    reason: 'Kuma stores the unknown number; meshdesk refuses it and stores every enum by name, as Kuma prints known ones.',
  },
  {
    area: 'validation',
    case: 'a Mesh with a "provided" CA backend',
    reason:
      "Kuma's provided-CA plugin loads and checks the certificate and key from their data sources (Secrets, files); " +
      'meshdesk has no Secrets and checks only the backend type.',
  },
  {
    area: 'validation',
    case: "changing a Mesh's mtls.enabledBackend while mTLS is on",
    reason: "Kuma's mesh manager forbids it on update; meshdesk does not issue certificates and lets it through.",
  },
  {
    area: 'validation',
    case: 'metrics conf envoy.filterRegex',
    reason: "Checked with JavaScript's RegExp (u flag), not Go's RE2: a few patterns valid in one are refused by the other.",
  },
  {
    area: 'api',
    case: 'GET of a Mesh or Dataplane written with proto zero values (state: Ready, skipValidation: false, port: 0)',
    reason:
      'Kuma stores the proto and prints it without zero values; meshdesk stores the spec as read (JSON names, ' +
      'numbers as numbers, enums by name) and gives back every field that was written.',
  },
  {
    area: 'api',
    case: 'put_dataplanes_00',
    status: 400,
    reason:
      'A second Dataplane of the mesh with an inbound on an address and port another one already uses (dp-2 on ' +
      "dp-1's 10.1.2.1:1234): Kuma accepts it; meshdesk refuses it at networking.inbound[0].port, naming the other " +
      "Dataplane (the manager's port-clash check), so that a local mesh never has two listeners on one port: the " +
      "second proxy's listener would fail to bind and the mesh's endpoints for that address and port would point at " +
      'whichever answers. Its proxies share one host, so the check holds for every address, not only loopback.',
  },
  {
    area: 'api',
    case: 'put_dataplanes_09',
    status: 400,
    reason: "As put_dataplanes_00: dp-6 also takes dp-1's 10.1.2.1:1234.",
  },
  {
    area: 'api',
    case: "a policy PUT's warnings beyond Kuma's deprecations",
    reason:
      "Kuma answers `{}` for a policy whose targetRef, `to` item or route backendRef selects nothing, or that aims at " +
      'builtin gateways; meshdesk adds a warning for each (policies/warnings/) after Kuma\'s deprecation warnings, and ' +
      'stores the policy all the same. kumactl prints each as `Warning: …`.',
  },
  {
    area: 'api',
    case: '_config and _rules with shadow=true',
    reason:
      "Kuma's `_config` needs the proxy's DataplaneInsight (a proxy that connected); meshdesk generates for any " +
      "Dataplane, as a connected proxy of its kind or else as Envoy. Kuma's `_rules` has no `shadow` parameter (it " +
      "ignores one); meshdesk's applies the shadow policies, and refuses a bad value with `_config`'s 400. Kuma's diff " +
      "(jd) aligns the items of arrays of different lengths; meshdesk replaces such an array whole (test, remove, add).",
  },
  {
    area: 'api',
    case: "a resource's version field",
    reason:
      'meshdesk adds `version` to every resource it answers, for the optimistic concurrency its UI uses; Kuma has ' +
      'none. kumactl ignores it (unknown fields are dropped) and does not print it. The API cases leave it out.',
  },
  {
    area: 'api',
    case: 'DataplaneOverview subscriptions',
    reason:
      "meshdesk keeps each proxy's current (or last) stream, so an insight has one subscription, not the history of " +
      'streams Kuma keeps; it has no kuma-dp/Envoy version (`version`), no `generation` and no `mTLS` (meshdesk issues ' +
      'no certificates).',
  },
  {
    area: 'xds-names',
    case: 'outbound-proxy-03',
    path: '\\.routes\\[[^\\]]*\\]\\.name$',
    reason:
      "The case's mesh has TrafficRoutes, so Kuma builds its outbounds with the legacy OutboundProxyGenerator, which " +
      "names no route. meshdesk has no TrafficRoute and builds them as Kuma 2.x does without one (MeshHTTPRoute's " +
      'default route, named after its matches; see xds/meshhttproute-default-route).',
  },
  {
    area: 'xds-structure',
    case: 'outbound-proxy-03',
    path: '\\.normalizePath$',
    reason:
      'As above: the legacy OutboundProxyGenerator does not normalize paths; MeshHTTPRoute\'s listeners, which meshdesk ' +
      'follows, do.',
  },
  {
    area: 'xds-structure',
    case: 'outbound-proxy-03',
    resource: '^outbound:127\\.0\\.0\\.1:40001$',
    path: '\\.streamIdleTimeout$',
    reason: "The case's mesh has a legacy Timeout policy on this outbound; meshdesk has no Timeout policy.",
  },
  {
    area: 'policies',
    case: 'meshfaultinjection/from-two-inbounds',
    resource: '^inbound:127\\.0\\.0\\.1:17777$',
    path: '\\.abort\\.',
    reason:
      "The policy aborts with HTTP status 111. Kuma's validator allows 100-599 and its plugin writes it, but Envoy's " +
      'HTTPFault takes 200-599 only, so Envoy rejects the whole listener. meshdesk leaves that abort out and reports ' +
      'it on the proxy as a field it cannot apply.',
  },
  {
    area: 'policies',
    case: 'meshratelimit/http-and-tcp-inbounds',
    resource: '^inbound:127\\.0\\.0\\.1:17777$',
    path: '\\.status\\.code$',
    reason:
      "The policy answers rate-limited requests with status 444. Kuma's validator takes any status above 0 and its " +
      "plugin writes it, but Envoy's HttpStatus takes only the codes of its StatusCode enum (defined_only), so Envoy " +
      "rejects the listener. meshdesk leaves the status out (Envoy answers 429) and reports it on the proxy.",
  },
  {
    area: 'policies',
    case: 'meshratelimit/spiffeid-and-catch-all',
    resource: '^inbound:127\\.0\\.0\\.1:17777$',
    path: '^networkFilters($|\\[name=envoy\\.filters\\.network\\.set_filter_state\\])|^routes\\[0\\]\\.(filterState|headers)',
    reason:
      "The copy of the route for the callers the SPIFFE ID rule matches is Kuma's, limit and place, but for how it " +
      "recognises them: Kuma matches filter state (RouteMatch.filter_state) that a set_filter_state network filter " +
      'writes at the TLS handshake (on_downstream_tls_handshake); neither field is in the Envoy protos meshdesk ' +
      'encodes with (those @grpc/grpc-js-xds 1.14 ships). meshdesk matches the caller certificate\'s URI SAN in ' +
      'x-forwarded-client-cert, which the inbound connection manager writes from the connection (SANITIZE_SET) before ' +
      'routing (policies/core/caller-routes.ts). Without mTLS (this case) no caller has an identity: the rule is ' +
      'reported and only the catch-all limit is written.',
  },
  {
    area: 'policies',
    case: 'meshhttproute/*',
    path: '\\.route\\.(timeout|idleTimeout)$',
    reason:
      "Kuma's MeshHTTPRoute writes `timeout: 0s` on every route and MeshTimeout, which a running kuma-cp always runs " +
      "after it, overwrites it with its defaults (15s, stream idle 1800s). meshdesk writes MeshTimeout's defaults when it " +
      "generates a route (xds/generate/defaults), and MeshHTTPRoute's routes keep the action fields of the route they " +
      'replace; the plugin test runs MeshHTTPRoute alone.',
  },
  {
    area: 'policies',
    case: 'meshhttproute/*',
    path: 'typedConfig\\.(commonHttpProtocolOptions\\.idleTimeout|requestHeadersTimeout)$',
    reason: "MeshTimeout's defaults on the HttpConnectionManager, which meshdesk writes at generation (see above).",
  },
  {
    area: 'policies',
    case: 'meshhttproute/*',
    path: 'typedConfig\\.internalAddressConfig\\.cidrRanges',
    reason:
      "The plugin test's proxy has one internal address (127.0.0.1/32); meshdesk, as a running kuma-cp, declares " +
      "kuma-cp's default ipam.knownInternalCIDRs (xds/generate/internal-addresses.ts).",
  },
  {
    area: 'policies',
    case: 'meshhttproute/*',
    path: '^(connectTimeout|circuitBreakers\\.|typedExtensionProtocolOptions\\[[^\\]]*\\]\\.commonHttpProtocolOptions\\.)',
    reason:
      "MeshTimeout's (connect, idle, max durations) and MeshCircuitBreaker's (trackRemaining) defaults on every mesh " +
      'cluster, which meshdesk writes at generation as a running kuma-cp does; the plugin test runs MeshHTTPRoute alone.',
  },
  {
    area: 'policies',
    case: 'meshtcproute/*',
    path: '^(connectTimeout|circuitBreakers\\.)',
    reason: "As in meshhttproute/*: MeshTimeout's and MeshCircuitBreaker's defaults on every mesh cluster, written at generation.",
  },
  {
    area: 'policies',
    case: 'meshtcproute/*',
    path: 'tcp_proxy\\]\\.typedConfig\\.idleTimeout$',
    reason: "MeshTimeout's default idle timeout on every tcp_proxy (1h), which meshdesk writes at generation; the plugin test runs MeshTCPRoute alone.",
  },
  {
    area: 'policies',
    case: 'meshtcproute/kafka',
    path: 'filters\\[name=envoy\\.filters\\.network\\.kafka_broker\\]',
    reason:
      "meshdesk reads `kuma.io/protocol: kafka` as tcp (its protocols are tcp, http, http2, grpc) and does not load " +
      "Envoy's contrib KafkaBroker proto, so a kafka outbound gets no kafka_broker filter (stats only; the tcp_proxy " +
      'and its weighted split are the same).',
  },
  {
    area: 'policies',
    case: 'meshtcproute/meshhttproute-clash-http-destination',
    resource: '^(outbound:127\\.0\\.0\\.1:1000[13]|http-backend)$',
    path: '^$',
    reason:
      "Kuma's test runs the MeshTCPRoute plugin alone, so the HTTP outbounds, which it leaves to MeshHTTPRoute, are " +
      "absent from its golden; meshdesk's test runs MeshHTTPRoute first, as every pipeline does, which routes backend " +
      '(10001) to http-backend and keeps 10003 as it was: MeshTCPRoute leaves both unchanged.',
  },
  {
    area: 'policies',
    case: 'meshloadbalancingstrategy/basic',
    resource: '^frontend$',
    path: '^leastRequestLbConfig\\.activeRequestBias\\.runtimeKey$',
    reason:
      "Envoy requires a runtime key beside a RuntimeDouble's default (runtime_key min_len 1) and would refuse Kuma's " +
      'cluster; meshdesk names one after the cluster (meshdesk.<cluster>.active_request_bias), which no runtime layer sets.',
  },
  {
    area: 'policies',
    case: 'meshloadbalancingstrategy/*',
    resource: '^(backend|payment|frontend)$',
    path: '\\.lbEndpoints\\[[^\\]]*\\]\\.loadBalancingWeight$',
    reason:
      "meshdesk's endpoints carry their weight (1 by default), as a running Kuma's do; Kuma's MeshLoadBalancingStrategy test " +
      'builds its endpoints without one. The plugin keeps whatever weight an endpoint has.',
  },
  {
    area: 'policies',
    case: 'meshloadbalancingstrategy/*',
    resource: '^backend$',
    path: '\\.lbEndpoints\\[endpoint=127\\.0\\.0\\.1:80\\]',
    reason:
      "The case's proxy has an inbound of service backend, so in meshdesk's mesh context it is one of backend's " +
      "endpoints (127.0.0.1:80, zone-1); Kuma's test hands its plugin a hand-built endpoint map without it.",
  },
];
