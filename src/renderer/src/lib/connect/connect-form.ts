// The "Connect a proxy" form: its values, their rules, and the Dataplane they describe.
import { PROTOCOL_TAG, SERVICE_TAG, type Protocol } from '../../../../shared/resources.js';
import type { XdsProtocol } from '../api/client.js';
import { parseFieldPath } from '../resources/field-locations.js';

export type ProxyKind = 'envoy' | 'grpc';

export interface OutboundRow {
  /** Stable across edits, so a row keeps its inputs and errors when another is removed. */
  id: number;
  port: string;
  service: string;
}

export interface ConnectFormValues {
  kind: ProxyKind;
  mesh: string;
  name: string;
  /** Empty: no inbound (a client only). */
  service: string;
  port: string;
  servicePort: string;
  protocol: Protocol;
  outbounds: OutboundRow[];
  /** Envoy's admin port; empty: the one meshdesk picks (a port of its own, not 9901). */
  adminPort: string;
  /** The ADS variant an Envoy bootstrap asks for; a proxyless gRPC one is always SotW. */
  xdsProtocol: XdsProtocol;
}

/** Starting points for the usual kinds of proxy: the form is filled in, then edited. */
export type ConnectPreset = 'envoy-sidecar' | 'grpc-client' | 'grpc-server';

export function presetValues(preset: ConnectPreset, mesh: string): ConnectFormValues {
  const base = { mesh, servicePort: '', protocol: 'grpc' as Protocol, adminPort: '', xdsProtocol: 'sotw' as XdsProtocol };
  switch (preset) {
    case 'envoy-sidecar':
      return { ...base, kind: 'envoy', name: 'app-1', service: 'app', port: '18080', servicePort: '8080', protocol: 'http', outbounds: [{ id: 1, port: '10001', service: 'backend' }] };
    case 'grpc-client':
      return { ...base, kind: 'grpc', name: 'client-1', service: '', port: '', outbounds: [{ id: 1, port: '10001', service: 'greeter' }] };
    case 'grpc-server':
      // No sidecar in between: the inbound port is the port the gRPC server itself listens on.
      return { ...base, kind: 'grpc', name: 'greeter-1', service: 'greeter', port: '50051', outbounds: [] };
  }
}

/** Messages by form field: `name`, `port`, `outbound.<id>.service`, …, `form` for the whole and `token` for the bootstrap's token. */
export type FieldErrors = Record<string, string>;

const NAME = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;
const SERVICE = /^[a-zA-Z0-9.\-_:]+$/;
/** Proxies on one laptop share 127.0.0.1: the address is not worth a field. */
const ADDRESS = '127.0.0.1';

export function outboundField(row: OutboundRow, field: 'port' | 'service'): string {
  return `outbound.${row.id}.${field}`;
}

/** The same rules as the API, checked as the user types (the API's answer is shown too, at the same fields). */
export function validateForm(values: ConnectFormValues): FieldErrors {
  const errors: FieldErrors = {};
  const check = (field: string, message: string | undefined) => {
    if (message !== undefined) errors[field] = message;
  };
  check('mesh', values.mesh === '' ? 'choose a mesh' : undefined);
  check('name', nameProblem(values.name));
  if (values.service !== '') {
    check('service', SERVICE.test(values.service) ? undefined : 'letters, digits, ".", "-", "_" or ":" only');
    check('port', portProblem(values.port));
    if (values.kind === 'envoy' && values.servicePort !== '') check('servicePort', portProblem(values.servicePort));
  }
  if (values.kind === 'envoy' && values.adminPort !== '') check('adminPort', portProblem(values.adminPort));
  for (const row of values.outbounds) {
    check(outboundField(row, 'port'), portProblem(row.port));
    check(outboundField(row, 'service'), row.service === '' ? 'required' : SERVICE.test(row.service) ? undefined : 'letters, digits, ".", "-", "_" or ":" only');
  }
  if (values.service === '' && values.outbounds.length === 0) check('form', 'give the proxy a service (an inbound), an outbound, or both');
  return errors;
}

/**
 * The Dataplane in Kuma's universal shape, as the bootstrap carries it. An Envoy's admin port is the
 * one typed in, else `pickedAdminPort` (the one meshdesk picked in the last bootstrap), if known.
 */
export function toDataplane(values: ConnectFormValues, pickedAdminPort?: number): Record<string, unknown> {
  const adminPort = values.kind !== 'envoy' ? undefined : values.adminPort !== '' ? Number(values.adminPort) : pickedAdminPort;
  const inbound =
    values.service === ''
      ? undefined
      : [
          {
            port: Number(values.port),
            // Proxyless gRPC has no sidecar in between: the app's port is the inbound's port.
            ...(values.kind === 'envoy' && values.servicePort !== '' && { servicePort: Number(values.servicePort) }),
            tags: { [SERVICE_TAG]: values.service, [PROTOCOL_TAG]: values.protocol },
          },
        ];
  const outbound = values.outbounds.map((row) => ({ port: Number(row.port), tags: { [SERVICE_TAG]: row.service } }));
  return {
    type: 'Dataplane',
    mesh: values.mesh,
    name: values.name,
    networking: {
      address: ADDRESS,
      ...(inbound && { inbound }),
      ...(outbound.length > 0 && { outbound }),
      ...(adminPort !== undefined && { admin: { port: adminPort } }),
    },
  };
}

/** The admin port an Envoy bootstrap (YAML or JSON text) binds: what meshdesk picked when the form left it empty. */
export function adminPortOfBootstrap(bootstrap: { admin?: { address?: { socket_address?: { port_value?: unknown } } } }): number | undefined {
  const port = bootstrap.admin?.address?.socket_address?.port_value;
  return typeof port === 'number' ? port : undefined;
}

/** The form field an API violation is about (`networking.outbound[1].tags` → that row's service). */
export function formFieldOf(path: string, values: ConnectFormValues): string {
  const [first, second, index, field] = parseFieldPath(path);
  if (first === 'name' || first === 'mesh' || first === 'token') return first;
  if (first !== 'networking') return 'form';
  if (second === 'admin') return 'adminPort';
  if (second === 'inbound') {
    if (field === 'tags') return parseFieldPath(path)[4] === PROTOCOL_TAG ? 'protocol' : 'service';
    return field === 'servicePort' ? 'servicePort' : field === 'port' ? 'port' : 'service';
  }
  if (second === 'outbound' && typeof index === 'number' && values.outbounds[index]) {
    return outboundField(values.outbounds[index], field === 'port' ? 'port' : 'service');
  }
  return 'form';
}

function nameProblem(name: string): string | undefined {
  if (name === '') return 'required';
  if (name.length > 253) return 'at most 253 characters';
  return NAME.test(name) ? undefined : 'lower case letters, digits, "-" or "."; starts and ends with a letter or digit';
}

function portProblem(port: string): string | undefined {
  if (port.trim() === '') return 'required';
  const value = Number(port);
  return Number.isInteger(value) && value >= 1 && value <= 65535 ? undefined : 'a port from 1 to 65535';
}
