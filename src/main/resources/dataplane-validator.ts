// Kuma v2.14.3's Dataplane validation (pkg/core/resources/apis/mesh/dataplane_validator.go): the same
// rules in the same order, with Kuma's field paths and messages, on a spec already read by proto-json.
// Absent fields count as their proto zero value (port 0, address ''), as they do in Kuma.
import { PROTOCOL_TAG, SERVICE_TAG } from '../../shared/resources.js';
import type { DataplaneSpec, Inbound, Listener, Outbound, ServiceProbe, TransparentProxying } from '../../shared/resources.js';
import { fieldPath, indexPath, keyPath } from './field-path.js';
import { parseGoDuration } from './go-duration.js';
import {
  PROTOCOLS_HINT,
  checkPort,
  checkResourceName,
  checkTags,
  isDnsName,
  isGoIp,
  isRequestUri,
  parseProtocol,
} from './kuma-rules.js';
import { checkPrometheusConf } from './prometheus-conf.js';
import type { ViolationList } from './validation-error.js';

/** A spec as read, before these rules: any field may be missing. */
export type UncheckedDataplaneSpec = Partial<Omit<DataplaneSpec, 'networking'>> & {
  networking?: Partial<Omit<DataplaneSpec['networking'], 'inbound' | 'outbound'>> & {
    inbound?: Partial<Inbound>[];
    outbound?: Partial<Outbound>[];
  };
};
type Networking = NonNullable<UncheckedDataplaneSpec['networking']>;

const BACKEND_KINDS = ['MeshExternalService', 'MeshMultiZoneService', 'MeshService'];
const BACKEND_KINDS_MESSAGE = `invalid value. Available values are: ${BACKEND_KINDS.join(',')}`;
const LOOPBACK = '127.0.0.1';

export function checkDataplaneSpec(spec: UncheckedDataplaneSpec, violations: ViolationList): void {
  const networking = spec.networking;
  if (networking === undefined) {
    violations.add('networking', 'must be defined');
    return;
  }
  const admin = networking.admin;
  if (admin !== undefined) {
    const port = admin.port ?? 0;
    if (usesInboundInterface(networking, port)) violations.add('networking.admin.port', 'must differ from inbound');
    if (usesOutboundInterface(networking, port)) violations.add('networking.admin.port', 'must differ from outbound');
  }
  const gatewayType = networking.gateway && (networking.gateway.type ?? 'DELEGATED');
  if (gatewayType === 'DELEGATED') {
    if (nonEmpty(networking.inbound)) violations.add('networking.inbound', 'inbound cannot be defined for delegated gateways');
    if (nonEmpty(networking.listeners)) {
      violations.add('networking.listeners', 'listeners cannot be defined for delegated gateways');
    }
    checkGateway(networking.gateway!.tags, violations);
    checkNetworking(networking, violations);
    checkProbes(spec.probes, violations);
  } else if (gatewayType === 'BUILTIN') {
    if (nonEmpty(networking.inbound)) violations.add('networking.inbound', 'inbound cannot be defined for builtin gateways');
    if (nonEmpty(networking.outbound)) violations.add('networking.outbound', 'outbound cannot be defined for builtin gateways');
    if (nonEmpty(networking.listeners)) {
      violations.add('networking.listeners', 'listeners cannot be defined for builtin gateways');
    }
    if (spec.probes !== undefined) violations.add('networking.probes', 'probes cannot be defined for builtin gateways');
    checkGateway(networking.gateway!.tags, violations);
    checkNetworking(networking, violations);
  } else {
    checkNetworking(networking, violations);
    checkProbes(spec.probes, violations);
    if (spec.metrics !== undefined) checkMetricsBackend(spec.metrics, 'metrics', violations);
    checkListeners(networking, violations);
  }
}

function nonEmpty(items: readonly unknown[] | undefined): boolean {
  return (items?.length ?? 0) > 0;
}

// ---- admin port vs the listeners on the loopback (dataplane_helpers.go) ---------------------------------

function usesInboundInterface(networking: Networking, port: number): boolean {
  return (networking.inbound ?? []).some((inbound) => {
    const dataplaneIp = inbound.address || (networking.address ?? '');
    const dataplanePort = inbound.port ?? 0;
    const workloadIp = inbound.serviceAddress || dataplaneIp;
    const workloadPort = inbound.servicePort || dataplanePort;
    return (
      (port === dataplanePort && overlapsLoopback(dataplaneIp)) || (port === workloadPort && overlapsLoopback(workloadIp))
    );
  });
}

function usesOutboundInterface(networking: Networking, port: number): boolean {
  return (networking.outbound ?? []).some(
    (outbound) => port === (outbound.port ?? 0) && overlapsLoopback(outbound.address || LOOPBACK),
  );
}

/** Go's overlap(127.0.0.1, address): the same IP, or a wildcard. */
function overlapsLoopback(address: string): boolean {
  return address === LOOPBACK || address === '0.0.0.0' || address === '::' || address === '::ffff:127.0.0.1';
}

// ---- networking ------------------------------------------------------------------------------------------

function checkNetworking(networking: Networking, violations: ViolationList): void {
  checkAddress(networking.address ?? '', 'networking.address', violations);
  (networking.inbound ?? []).forEach((inbound, index) => {
    const path = indexPath('networking.inbound', index);
    checkInbound(inbound, networking.address ?? '', path, violations);
    // Inbounds without tags are valid since 2.14; inbounds with tags must still name their service.
    const tags = inbound.tags ?? {};
    if (Object.keys(tags).length > 0 && !(SERVICE_TAG in tags)) {
      violations.add(keyPath(`${path}.tags`, SERVICE_TAG), 'tag has to exist');
    }
  });
  (networking.outbound ?? []).forEach((outbound, index) =>
    checkOutbound(outbound, indexPath('networking.outbound', index), violations),
  );
  // Kuma's path has this spelling.
  checkTransparentProxying(networking.transparentProxying, 'networking.transparentProxing', violations);
}

function checkAddress(address: string, path: string, violations: ViolationList): void {
  if (address === '') {
    violations.add(path, "address can't be empty");
    return;
  }
  if (address === '0.0.0.0' || address === '::') violations.add(path, 'must not be 0.0.0.0 or ::');
  if (!isGoIp(address) && !isDnsName(address)) {
    violations.add(path, 'address has to be valid IP address or domain name');
  }
}

function checkInbound(inbound: Partial<Inbound>, dataplaneAddress: string, path: string, violations: ViolationList): void {
  const field = (name: string): string => fieldPath(path, name);
  const port = inbound.port ?? 0;
  const servicePort = inbound.servicePort ?? 0;
  const selfLoop = servicePort === 0 || servicePort === port;
  checkPort(port, field('port'), violations);
  if (servicePort !== 0) checkPort(servicePort, field('servicePort'), violations);
  const serviceAddress = inbound.serviceAddress ?? '';
  if (serviceAddress !== '') {
    if (!isGoIp(serviceAddress)) violations.add(field('serviceAddress'), 'serviceAddress has to be valid IP address');
    if (serviceAddress === dataplaneAddress && selfLoop) {
      violations.add(field('serviceAddress'), 'serviceAddress and servicePort has to differ from address and port');
    }
  }
  const address = inbound.address ?? '';
  if (address !== '') {
    if (!isGoIp(address)) violations.add(field('address'), 'address has to be valid IP address');
    if (address === serviceAddress && selfLoop) {
      violations.add(field('serviceAddress'), 'serviceAddress and servicePort has to differ from address and port');
    }
  }
  checkTags(inbound.tags, field('tags'), violations, {
    checkAll: (tags, tagsPath, tagViolations) => {
      const protocol = tags[PROTOCOL_TAG];
      if (protocol !== undefined && parseProtocol(protocol) === undefined) {
        tagViolations.add(
          keyPath(tagsPath, PROTOCOL_TAG),
          `tag "${PROTOCOL_TAG}" has an invalid value "${protocol}". ${PROTOCOLS_HINT}`,
        );
      }
    },
  });
  const protocol = inbound.protocol ?? '';
  if (protocol !== '' && parseProtocol(protocol) === undefined) {
    violations.add(field('protocol'), `has an invalid value "${protocol}". ${PROTOCOLS_HINT}`);
  }
  if (inbound.serviceProbe !== undefined) checkServiceProbe(inbound.serviceProbe, field('serviceProbe'), violations);
}

function checkServiceProbe(probe: ServiceProbe, path: string, violations: ViolationList): void {
  const positiveDuration = (value: string | undefined, name: string): void => {
    if (value === undefined) return;
    // Kuma refuses only zero here: a negative duration passes (ValidateDuration).
    if (parseGoDuration(value) === 0) violations.add(fieldPath(path, name), 'must have a positive value');
  };
  const positive = (value: number | undefined, name: string): void => {
    if (value === 0) violations.add(fieldPath(path, name), 'must have a positive value');
  };
  positiveDuration(probe.interval, 'interval');
  positiveDuration(probe.timeout, 'timeout');
  positive(probe.unhealthyThreshold, 'unhealthyThreshold');
  positive(probe.healthyThreshold, 'healthyThreshold');
}

function checkOutbound(outbound: Partial<Outbound>, path: string, violations: ViolationList): void {
  const field = (name: string): string => fieldPath(path, name);
  checkPort(outbound.port, field('port'), violations);
  if (outbound.address && !isGoIp(outbound.address)) violations.add(field('address'), 'address has to be valid IP address');
  const tags = outbound.tags ?? {};
  const hasTags = Object.keys(tags).length > 0;
  const backendRef = outbound.backendRef;
  if (backendRef !== undefined) {
    const kind = backendRef.kind ?? '';
    if (!BACKEND_KINDS.includes(kind)) violations.add(`${path}.backendRef.kind`, BACKEND_KINDS_MESSAGE);
    if (!backendRef.name && Object.keys(backendRef.labels ?? {}).length === 0) {
      violations.add(`${path}.backendRef`, "either 'name' or 'labels' should be specified");
    }
    // A MeshExternalService's port comes from its endpoints.
    if (kind !== 'MeshExternalService') checkPort(backendRef.port, `${path}.backendRef.port`, violations);
  } else if (!hasTags) {
    violations.add(field('tags'), `mandatory tag "${SERVICE_TAG}" is missing`);
  } else {
    checkTags(tags, field('tags'), violations, { requireService: true });
  }
  if (backendRef !== undefined && hasTags) {
    violations.add(`${path}.backendRef`, 'both backendRef and tags/service cannot be defined');
  }
}

function checkTransparentProxying(
  transparentProxying: TransparentProxying | undefined,
  path: string,
  violations: ViolationList,
): void {
  (transparentProxying?.reachableBackends?.refs ?? []).forEach((ref, index) => {
    const refPath = indexPath(`${path}.reachableBackends.refs`, index);
    const name = ref.name ?? '';
    const namespace = ref.namespace ?? '';
    const hasLabels = Object.keys(ref.labels ?? {}).length > 0;
    if (!BACKEND_KINDS.includes(ref.kind ?? '')) violations.add(`${refPath}.kind`, BACKEND_KINDS_MESSAGE);
    if (name !== '') checkResourceName(name, `${refPath}.name`, violations);
    if (name === '' && namespace === '' && !hasLabels) violations.add(`${refPath}.name`, 'name or labels are required');
    if (name === '' && namespace !== '') violations.add(`${refPath}.name`, 'name is required, when namespace is defined');
    if ((name !== '' || namespace !== '') && hasLabels) {
      violations.add(`${refPath}.labels`, 'labels cannot be defined when name is specified');
    }
  });
}

function checkProbes(probes: UncheckedDataplaneSpec['probes'], violations: ViolationList): void {
  if (probes === undefined) return;
  checkPort(probes.port, 'probes.port', violations);
  (probes.endpoints ?? []).forEach((endpoint, index) => {
    const path = indexPath('probes.endpoints', index);
    checkPort(endpoint.inboundPort, `${path}.inboundPort`, violations);
    if (!isRequestUri(endpoint.inboundPath ?? '')) violations.add(`${path}.inboundPath`, 'should be a valid URL Path');
    if (!isRequestUri(endpoint.path ?? '')) violations.add(`${path}.path`, 'should be a valid URL Path');
  });
}

/** A Dataplane's (or a Mesh metrics backend's) metrics: only Prometheus exists. */
export function checkMetricsBackend(
  metrics: { type?: string; conf?: Record<string, unknown> },
  path: string,
  violations: ViolationList,
): void {
  if (metrics.type !== 'prometheus') {
    violations.add(`${path}.type`, 'unknown backend type. Available backends: "prometheus"');
  } else {
    checkPrometheusConf(metrics.conf, `${path}.conf`, violations);
  }
}

function checkListeners(networking: Networking, violations: ViolationList): void {
  const names = new Set((networking.inbound ?? []).map((inbound) => inbound.name || String(inbound.port ?? 0)));
  const typeByAddressAndPort = new Map<string, Listener['type']>();
  (networking.listeners ?? []).forEach((listener, index) => {
    const path = indexPath('networking.listeners', index);
    const type = listener.type ?? 'Unspecified';
    if (type === 'Unspecified') violations.add(`${path}.type`, 'type must be ZoneIngress or ZoneEgress');
    checkAddress(listener.address ?? '', `${path}.address`, violations);
    checkPort(listener.port, `${path}.port`, violations);
    const name = listener.name ?? '';
    if (name !== '') {
      if (names.has(name)) violations.add(`${path}.name`, `name "${name}" must be unique across inbounds and listeners`);
      names.add(name);
    }
    const key = `${listener.address ?? ''}:${listener.port ?? 0}`;
    const existing = typeByAddressAndPort.get(key);
    if (existing === undefined) {
      typeByAddressAndPort.set(key, type);
    } else if (existing === type) {
      violations.add(path, `address:port ${key} is already used by another listener`);
    } else {
      violations.add(path, `address:port ${key} is used by listeners of different types`);
    }
    const collides = (networking.inbound ?? []).some(
      (inbound) => `${inbound.address || (networking.address ?? '')}:${inbound.port ?? 0}` === key,
    );
    if (collides) violations.add(path, `address:port ${key} collides with an inbound listener`);
  });
}

function checkGateway(tags: Record<string, string> | undefined, violations: ViolationList): void {
  checkTags(tags, 'networking.gateway.tags', violations, {
    // Gateways without tags are valid since 2.14; with tags they must name their service.
    requireService: Object.keys(tags ?? {}).length > 0,
    checkAll: (map, path, tagViolations) => {
      const protocol = map[PROTOCOL_TAG];
      if (protocol !== undefined && parseProtocol(protocol) !== 'tcp') {
        tagViolations.add(keyPath(path, PROTOCOL_TAG), `other values than tcp are not allowed, provided value "${protocol}"`);
      }
    },
  });
}
