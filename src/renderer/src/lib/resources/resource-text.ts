// Resources as the editor shows them: Kuma's YAML, meta first, then the spec's fields.
import { LineCounter, parseDocument, stringify } from 'yaml';
import { isPolicyType, type PolicyType } from '../../../../shared/policy-types.js';
import { RESOURCE_TYPES, SERVICE_TAG, isMeshScoped, type ResourceKey, type ResourceType, type Violation } from '../../../../shared/resources.js';
import type { KumaObject } from '../api/index.js';

/** Read-only fields the store owns or computes: shown beside the editor, not in it. `version` stays: applying sends it back. */
const STORE_FIELDS = ['creationTime', 'modificationTime', 'kri'];

export function toEditableYaml(resource: KumaObject): string {
  const fields = Object.entries(resource).filter(
    ([name, value]) => !STORE_FIELDS.includes(name) && !(name === 'labels' && isEmptyObject(value)),
  );
  return stringify(Object.fromEntries(fields), { lineWidth: 0 });
}

export type KeyFromText = { key: ResourceKey } | { violations: Violation[] };

/**
 * Which resource the text describes, read locally to choose the URL to PUT it to. Syntax errors
 * come back as violations positioned like the API's (`line L, column C: …`); everything else is
 * left for the API to judge, so its rules live in one place.
 */
export function keyFromText(text: string): KeyFromText {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      violations: document.errors.map((error) => {
        const { line, col } = lineCounter.linePos(error.pos[0]);
        return { field: '', message: `line ${line}, column ${col}: ${error.message}` };
      }),
    };
  }
  const value: unknown = document.toJS();
  const object = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const violations: Violation[] = [];
  const type = (RESOURCE_TYPES as readonly unknown[]).includes(object.type) ? (object.type as ResourceType) : undefined;
  if (type === undefined) violations.push({ field: 'type', message: `must be one of ${RESOURCE_TYPES.join(', ')}` });
  if (typeof object.name !== 'string' || object.name === '') violations.push({ field: 'name', message: 'is required' });
  if (type !== undefined && isMeshScoped(type) && (typeof object.mesh !== 'string' || object.mesh === '')) violations.push({ field: 'mesh', message: 'is required' });
  if (violations.length > 0) return { violations };
  return { key: { type: type!, mesh: type === undefined || isMeshScoped(type) ? (object.mesh as string) : '', name: object.name as string } };
}

/** What is stored already, so that a template names and ports nothing that exists. */
export interface Existing {
  meshes: readonly KumaObject[];
  dataplanes: readonly KumaObject[];
  /** The policies stored, for a policy template's free name. */
  policies?: readonly KumaObject[];
}

const TEMPLATE_ADDRESS = '127.0.0.1';

/** The types "New" has a template for: every type the API stores. */
export type TemplateType = 'Mesh' | 'Dataplane' | PolicyType;

/**
 * Starting points for "New": valid as they are, so Apply works at once, with a name the mesh does
 * not have (`backend-2` when `backend-1` exists) serving a service no Dataplane of the mesh serves, and
 * ports (inbound, app, outbound) no Dataplane of any mesh names: on a laptop every Dataplane's
 * ports are on the one host. Applying a template only ever creates.
 */
export function template(type: TemplateType, mesh: string, existing: Existing): string {
  if (isPolicyType(type)) return policyTemplate(type, mesh, existing);
  if (type === 'Mesh') return `type: Mesh\nname: ${freeName('my-mesh', new Set(existing.meshes.map((each) => each.name)))}\n`;
  const inMesh = existing.dataplanes.filter((each) => each.mesh === mesh);
  // backend-1 serves backend, backend-2 serves backend-2, …: the first pair whose name and service are both free.
  const names = new Set(inMesh.map((each) => each.name));
  const services = new Set(inMesh.flatMap((each) => (networkingOf(each).inbound ?? []).flatMap((inbound) => inbound.tags?.[SERVICE_TAG] ?? [])));
  let index = 1;
  const serviceAt = (at: number) => (at === 1 ? 'backend' : `backend-${at}`);
  while (names.has(`backend-${index}`) || services.has(serviceAt(index))) index++;
  const [name, service] = [`backend-${index}`, serviceAt(index)];
  const taken = portsNamed(existing.dataplanes);
  const port = freePort(18080, taken);
  const servicePort = freePort(8080, taken.add(port));
  const outboundPort = freePort(10001, taken.add(servicePort));
  return `type: Dataplane
mesh: ${mesh}
name: ${name}
networking:
  address: ${TEMPLATE_ADDRESS}
  inbound:
    - port: ${port}          # Envoy listens here
      servicePort: ${servicePort}    # the app; defaults to port
      tags:
        kuma.io/service: ${service}
        kuma.io/protocol: http
  outbound:
    - port: ${outboundPort}          # Envoy listens on 127.0.0.1:${outboundPort} and forwards to service "web"
      tags:
        kuma.io/service: web
`;
}

/**
 * A policy that selects every proxy of the mesh and sets one field towards every destination (or
 * on every inbound, for the inbound-only types), in the type's own conf: edit from there.
 */
function policyTemplate(type: PolicyType, mesh: string, existing: Existing): string {
  const taken = new Set((existing.policies ?? []).filter((each) => each.type === type && each.mesh === mesh).map((each) => each.name));
  const name = freeName(type.toLowerCase().replace(/^mesh/, ''), taken);
  return `type: ${type}
mesh: ${mesh}
name: ${name}
spec:
  targetRef:
    kind: Mesh
${POLICY_TEMPLATE_BODIES[type]}`;
}

/** The `to` or `rules` part of each type's template: one field, valid as it is. */
const POLICY_TEMPLATE_BODIES: Record<PolicyType, string> = {
  MeshHTTPRoute: `  to:
    - targetRef:
        kind: MeshService
        name: backend
      rules:
        - matches:
            - path:
                type: PathPrefix
                value: /
          default:
            backendRefs:
              - kind: MeshService
                name: backend
`,
  MeshTCPRoute: `  to:
    - targetRef:
        kind: MeshService
        name: backend
      rules:
        - default:
            backendRefs:
              - kind: MeshService
                name: backend
`,
  MeshLoadBalancingStrategy: `  to:
    - targetRef:
        kind: Mesh
      default:
        loadBalancer:
          type: RoundRobin
`,
  MeshAccessLog: `  to:
    - targetRef:
        kind: Mesh
      default:
        backends:
          - type: File
            file:
              path: /tmp/access.log
`,
  MeshFaultInjection: `  rules:
    - default:
        http:
          - abort:
              httpStatus: 503
              percentage: 10
`,
  MeshRateLimit: `  rules:
    - default:
        local:
          http:
            requestRate:
              num: 100
              interval: 1s
`,
  MeshTimeout: `  to:
    - targetRef:
        kind: Mesh
      default:
        http:
          requestTimeout: 10s
`,
  MeshTrafficPermission: `  from:
    - targetRef:
        kind: Mesh
      default:
        action: Allow
`,
  MeshHealthCheck: `  to:
    - targetRef:
        kind: Mesh
      default:
        interval: 10s
        timeout: 2s
        unhealthyThreshold: 3
        healthyThreshold: 1
`,
  MeshCircuitBreaker: `  to:
    - targetRef:
        kind: Mesh
      default:
        connectionLimits:
          maxRequests: 1024
`,
  MeshRetry: `  to:
    - targetRef:
        kind: Mesh
      default:
        http:
          numRetries: 3
`,
};

/** `backend-1`, or the first `backend-N` not taken. */
function freeName(stem: string, taken: ReadonlySet<string>): string {
  let index = 1;
  while (taken.has(`${stem}-${index}`)) index++;
  return `${stem}-${index}`;
}

interface TemplateNetworking {
  inbound?: { port?: number; servicePort?: number; tags?: Record<string, string> }[];
  outbound?: { port?: number }[];
  admin?: { port?: number };
}

function networkingOf(dataplane: KumaObject): TemplateNetworking {
  return (dataplane as { networking?: TemplateNetworking }).networking ?? {};
}

/** Every port the Dataplanes name: inbound, app, outbound and admin ports. */
function portsNamed(dataplanes: readonly KumaObject[]): Set<number> {
  const ports = dataplanes.flatMap((dataplane) => {
    const { inbound = [], outbound = [], admin } = networkingOf(dataplane);
    return [...inbound.flatMap((each) => [each.port, each.servicePort]), ...outbound.map((each) => each.port), admin?.port];
  });
  return new Set(ports.filter((port): port is number => typeof port === 'number'));
}

function freePort(from: number, taken: ReadonlySet<number>): number {
  let port = from;
  while (taken.has(port)) port++;
  return port;
}

const VERSION_LINE = /^version:.*$/m;

/**
 * The text with the version the user saw, so that applying it is an update of exactly that
 * version whatever happened to the `version:` line in the editor. Other lines stay where they
 * are, so the API's violations still point at the user's lines.
 */
export function withVersion(text: string, version: number): string {
  if (VERSION_LINE.test(text)) return text.replace(VERSION_LINE, `version: ${version}`);
  const document = parseDocument(text);
  // Block YAML (what the editor shows): one more line at the end. Flow or JSON: set the field.
  if (!text.trimStart().startsWith('{')) return `${text.replace(/\n*$/, '')}\nversion: ${version}\n`;
  document.set('version', version);
  return String(document);
}

export function describeKey({ type, mesh, name }: ResourceKey): string {
  return type === 'Mesh' ? `Mesh ${name}` : `${type} ${mesh}/${name}`;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}
