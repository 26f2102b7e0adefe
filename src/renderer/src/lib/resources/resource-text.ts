// Resources as the editor shows them: Kuma's YAML, meta first, then the spec's fields.
import { LineCounter, parseDocument, stringify } from 'yaml';
import { RESOURCE_TYPES, isMeshScoped, type ResourceKey, type ResourceType, type Violation } from '../../../../shared/resources.js';
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
  return { key: { type: type!, mesh: type === 'Mesh' ? '' : (object.mesh as string), name: object.name as string } };
}

/** What is stored already, so that a template names and ports nothing that exists. */
export interface Existing {
  meshes: readonly KumaObject[];
  dataplanes: readonly KumaObject[];
}

const TEMPLATE_ADDRESS = '127.0.0.1';

/** The types "New" has a template for; a policy is written from scratch (or copied from one stored). */
export type TemplateType = 'Mesh' | 'Dataplane';

/**
 * Starting points for "New": valid as they are, so Apply works at once, with a name the mesh does
 * not have (`backend-2` when `backend-1` exists) and an inbound port no Dataplane of the mesh
 * listens on at the same address. Applying a template only ever creates.
 */
export function template(type: TemplateType, mesh: string, existing: Existing): string {
  if (type === 'Mesh') return `type: Mesh\nname: ${freeName('my-mesh', new Set(existing.meshes.map((each) => each.name)))}\n`;
  const inMesh = existing.dataplanes.filter((each) => each.mesh === mesh);
  const name = freeName('backend', new Set(inMesh.map((each) => each.name)));
  const port = freePort(18080, inMesh);
  return `type: Dataplane
mesh: ${mesh}
name: ${name}
networking:
  address: ${TEMPLATE_ADDRESS}
  inbound:
    - port: ${port}          # Envoy listens here
      servicePort: 8080    # the app; defaults to port
      tags:
        kuma.io/service: backend
        kuma.io/protocol: http
  outbound:
    - port: 10001          # Envoy listens on 127.0.0.1:10001 and forwards to service "web"
      tags:
        kuma.io/service: web
`;
}

/** `backend-1`, or the first `backend-N` not taken. */
function freeName(stem: string, taken: ReadonlySet<string>): string {
  let index = 1;
  while (taken.has(`${stem}-${index}`)) index++;
  return `${stem}-${index}`;
}

function freePort(from: number, dataplanes: readonly KumaObject[]): number {
  const taken = new Set<number>();
  for (const dataplane of dataplanes) {
    const networking = (dataplane as { networking?: { address?: string; inbound?: { port?: number; address?: string }[] } }).networking;
    for (const inbound of networking?.inbound ?? []) {
      if ((inbound.address ?? networking?.address) === TEMPLATE_ADDRESS && typeof inbound.port === 'number') taken.add(inbound.port);
    }
  }
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
