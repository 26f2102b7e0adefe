// Resources as the editor shows them: Kuma's YAML, meta first, then the spec's fields.
import { LineCounter, parseDocument, stringify } from 'yaml';
import type { ResourceKey, ResourceType, Violation } from '../../../../shared/resources.js';
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
  const type = object.type === 'Mesh' || object.type === 'Dataplane' ? (object.type as ResourceType) : undefined;
  if (type === undefined) violations.push({ field: 'type', message: 'must be Mesh or Dataplane' });
  if (typeof object.name !== 'string' || object.name === '') violations.push({ field: 'name', message: 'is required' });
  if (type === 'Dataplane' && (typeof object.mesh !== 'string' || object.mesh === '')) violations.push({ field: 'mesh', message: 'is required' });
  if (violations.length > 0) return { violations };
  return { key: { type: type!, mesh: type === 'Mesh' ? '' : (object.mesh as string), name: object.name as string } };
}

/** Starting points for "New": valid as they are, so Apply works at once. */
export function template(type: ResourceType, mesh: string): string {
  if (type === 'Mesh') return 'type: Mesh\nname: my-mesh\n';
  return `type: Dataplane
mesh: ${mesh}
name: backend-1
networking:
  address: 127.0.0.1
  inbound:
    - port: 18080          # Envoy listens here
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

export function describeKey({ type, mesh, name }: ResourceKey): string {
  return type === 'Mesh' ? `Mesh ${name}` : `Dataplane ${mesh}/${name}`;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}
