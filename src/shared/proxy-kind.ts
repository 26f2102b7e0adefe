/** What kind of data plane a proxy is: an Envoy sidecar, or a proxyless gRPC application (its xDS client). */
export type ProxyKind = 'envoy' | 'grpc';
