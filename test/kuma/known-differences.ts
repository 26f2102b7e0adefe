// Every place where meshdesk knowingly differs from Kuma v2.14.3's golden data (../shared/kuma-cases),
// with the reason. The conformance tests (test/kuma/) fail on any difference not listed here, and on
// an entry that no longer matches anything, so this list stays the truth. What a case itself puts
// out of scope (its case.json, mTLS, transparent proxying…) is not listed: see test/kuma/support/xds-cases.ts.

export interface KnownDifference {
  area: 'validation' | 'xds-names' | 'xds-structure' | 'xds-e2e';
  /** The case id, or '*' for every case of the area. */
  case: string;
  reason: string;
  /** xDS areas: a regex on the resource name; every resource when absent. */
  resource?: string;
  /** xDS areas: a regex on the leaf path (see test/kuma/support/xds-leaves.ts); every leaf when absent. */
  path?: string;
}

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
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
    area: 'xds-e2e',
    case: '*',
    path: '\\["kuma\\.io/zone"\\]$|^endpoints\\[0\\]\\.locality\\.zone$',
    reason:
      "The e2e control plane is zone 'kuma-3' of a multi-zone Kuma: it adds kuma.io/zone to inbound tags and puts " +
      'endpoints in that locality. A local meshdesk mesh has no zones.',
  },
  {
    area: 'xds-e2e',
    case: '*',
    path: '\\["io\\.kuma\\.labels"\\]',
    reason:
      "Endpoints carry their Dataplane's labels (io.kuma.labels) as in Kuma, but the e2e Dataplanes' labels are the ones " +
      'Kuma computes on write (kuma.io/env, mesh, origin, proxy-type, zone); the cases\' meshdesk.yaml Dataplanes have none.',
  },
];
