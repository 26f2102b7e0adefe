// Kuma v2.14.3's Mesh and Dataplane messages (api/mesh/v1alpha1/{mesh,dataplane,metrics,envoy_admin}.proto)
// as proto-json reads them. Each message is checked against its type in shared/resources.ts, field for
// field, so the typed model and what is accepted cannot drift apart.
import type {
  BackendRef,
  CertificateAuthorityBackend,
  DataplaneSpec,
  Gateway,
  Inbound,
  Listener,
  MeshSpec,
  NamedBackend,
  Outbound,
  PrometheusAggregate,
  ReachableBackendRef,
  ServiceProbe,
  TransparentProxying,
} from '../../shared/resources.js';
import type { FieldType, MessageFields } from './proto-json.js';
import { bool, double, duration, enumOf, list, message, string, stringMap, struct, uint32 } from './proto-json.js';

type FieldsOf<T> = { readonly [K in keyof Required<T>]: { type: FieldType; protoName?: string } };
/** The message of type T: the compiler insists on exactly T's fields. */
const messageOf = <T>(fields: FieldsOf<T>): FieldType => message(fields as MessageFields);
const field = (type: FieldType, protoName?: string) => (protoName ? { type, protoName } : { type });

// ---- Mesh --------------------------------------------------------------------------------------------

type MeshField<K extends keyof MeshSpec> = NonNullable<MeshSpec[K]>;

const certificateAuthorityBackend = messageOf<CertificateAuthorityBackend>({
  name: field(string),
  type: field(string),
  dpCert: field(message({ rotation: field(message({ expiration: field(string) })), requestTimeout: field(duration) })),
  conf: field(struct),
  mode: field(enumOf(['STRICT', 'PERMISSIVE'])),
  rootChain: field(message({ requestTimeout: field(duration) })),
});

const namedBackend = {
  name: field(string),
  type: field(string),
  conf: field(struct),
} satisfies FieldsOf<NamedBackend>;

const tagRules = list(message({ tags: field(stringMap) }));

export const MESH_SPEC: MessageFields = {
  mtls: field(
    messageOf<MeshField<'mtls'>>({
      enabledBackend: field(string),
      backends: field(list(certificateAuthorityBackend)),
      skipValidation: field(bool),
    }),
  ),
  tracing: field(
    messageOf<MeshField<'tracing'>>({
      defaultBackend: field(string),
      backends: field(list(message({ ...namedBackend, sampling: field(double) }))),
    }),
  ),
  logging: field(
    messageOf<MeshField<'logging'>>({
      defaultBackend: field(string),
      backends: field(list(message({ ...namedBackend, format: field(string) }))),
    }),
  ),
  metrics: field(
    messageOf<MeshField<'metrics'>>({
      enabledBackend: field(string),
      backends: field(list(message(namedBackend))),
    }),
  ),
  networking: field(message({ outbound: field(message({ passthrough: field(bool) })) })),
  routing: field(
    messageOf<MeshField<'routing'>>({
      localityAwareLoadBalancing: field(bool),
      zoneEgress: field(bool),
      defaultForbidMeshExternalServiceAccess: field(bool),
    }),
  ),
  constraints: field(
    message({ dataplaneProxy: field(message({ requirements: field(tagRules), restrictions: field(tagRules) })) }),
  ),
  skipCreatingInitialPolicies: field(list(string)),
  meshServices: field(message({ mode: field(enumOf(['Disabled', 'Everywhere', 'ReachableBackends', 'Exclusive'])) })),
} satisfies FieldsOf<MeshSpec>;

// ---- Dataplane ---------------------------------------------------------------------------------------

const serviceProbe = messageOf<ServiceProbe>({
  interval: field(duration),
  timeout: field(duration),
  unhealthyThreshold: field(uint32, 'unhealthy_threshold'),
  healthyThreshold: field(uint32, 'healthy_threshold'),
  tcp: field(message({})),
});

const inbound = messageOf<Inbound>({
  port: field(uint32),
  servicePort: field(uint32),
  serviceAddress: field(string),
  address: field(string),
  tags: field(stringMap),
  health: field(message({ ready: field(bool) })),
  serviceProbe: field(serviceProbe),
  state: field(enumOf(['Ready', 'NotReady', 'Ignored'])),
  name: field(string),
  protocol: field(string),
});

const outbound = messageOf<Outbound>({
  address: field(string),
  port: field(uint32),
  tags: field(stringMap),
  backendRef: field(
    messageOf<BackendRef>({ kind: field(string), name: field(string), port: field(uint32), labels: field(stringMap) }),
  ),
});

const transparentProxying = messageOf<TransparentProxying>({
  redirectPortInbound: field(uint32, 'redirect_port_inbound'),
  redirectPortOutbound: field(uint32, 'redirect_port_outbound'),
  directAccessServices: field(list(string), 'direct_access_services'),
  reachableServices: field(list(string), 'reachable_services'),
  ipFamilyMode: field(enumOf(['UnSpecified', 'DualStack', 'IPv4', 'IPv6']), 'ip_family_mode'),
  reachableBackends: field(
    message({
      refs: field(
        list(
          messageOf<ReachableBackendRef>({
            kind: field(string),
            name: field(string),
            namespace: field(string),
            port: field(uint32),
            labels: field(stringMap),
          }),
        ),
      ),
    }),
    'reachable_backends',
  ),
});

const listener = messageOf<Listener>({
  type: field(enumOf(['Unspecified', 'ZoneIngress', 'ZoneEgress'])),
  address: field(string),
  port: field(uint32),
  name: field(string),
  state: field(enumOf(['Ready', 'NotReady'])),
});

export const DATAPLANE_SPEC: MessageFields = {
  networking: field(
    messageOf<DataplaneSpec['networking']>({
      address: field(string),
      advertisedAddress: field(string),
      inbound: field(list(inbound)),
      outbound: field(list(outbound)),
      gateway: field(messageOf<Gateway>({ tags: field(stringMap), type: field(enumOf(['DELEGATED', 'BUILTIN'])) })),
      transparentProxying: field(transparentProxying, 'transparent_proxying'),
      admin: field(message({ port: field(uint32) })),
      listeners: field(list(listener)),
    }),
  ),
  metrics: field(message(namedBackend)),
  probes: field(
    message({
      port: field(uint32),
      endpoints: field(
        list(
          message({
            inboundPort: field(uint32, 'inbound_port'),
            inboundPath: field(string, 'inbound_path'),
            path: field(string),
          }),
        ),
      ),
    }),
  ),
} satisfies FieldsOf<DataplaneSpec>;

// Kuma's backend `conf` messages, read from a Struct by the Mesh validator (as Kuma's proto.ToTyped does).

const PROMETHEUS_AGGREGATE = messageOf<PrometheusAggregate>({
  name: field(string),
  port: field(uint32),
  path: field(string),
  enabled: field(bool),
  address: field(string),
});

export const PROMETHEUS_CONF: MessageFields = {
  port: field(uint32),
  path: field(string),
  tags: field(stringMap),
  skipMTLS: field(bool),
  aggregate: field(list(PROMETHEUS_AGGREGATE)),
  envoy: field(message({ filterRegex: field(string), usedOnly: field(bool) })),
  tls: field(message({ mode: field(enumOf(['activeMTLSBackend', 'providedTLS', 'disabled'])) })),
};

export const TCP_LOGGING_CONF: MessageFields = { address: field(string) };
export const FILE_LOGGING_CONF: MessageFields = { path: field(string) };
export const DATADOG_CONF: MessageFields = { address: field(string), port: field(uint32), splitService: field(bool) };
export const ZIPKIN_CONF: MessageFields = {
  url: field(string),
  traceId128bit: field(bool),
  apiVersion: field(string),
  sharedSpanContext: field(bool),
};
