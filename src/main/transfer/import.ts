// `meshdesk import`: reads what `meshdesk export` writes and what `kumactl get … -o yaml` prints (one
// resource, or a list `{items, total, next}`), validates all of it, then writes it in one transaction.
import { isDeepStrictEqual } from 'node:util';
import type { ImportedResource, ImportReport } from '../../shared/api-types.js';
import { isMeshScoped, type Resource, type ResourceInput, type ResourceKey, type Violation } from '../../shared/resources.js';
import type { ResourceManager } from '../manager/interfaces.js';
import { indexPath, joinPath } from '../resources/field-path.js';
import { parseResourceDocuments } from '../resources/parse.js';
import { validateResource } from '../resources/validate.js';
import { ValidationError, ViolationList } from '../resources/validation-error.js';
import { MESHES_FIRST } from './export.js';

export interface ImportOptions {
  /** Update resources that exist and differ; without it such an import is refused. */
  overwrite?: boolean;
  /** Decide everything, write nothing. */
  dryRun?: boolean;
}

/** One resource of the text, with where it was: `resource[2]`, or `resource[0].items[3]` in a list. */
export interface ImportDocument {
  path: string;
  input: ResourceInput;
}

const INVALID_TITLE = 'the import is not valid; nothing was written';

/** Existing resources the import would change, refused without `overwrite`; nothing was written. */
export class ExistingResourcesError extends Error {
  override readonly name = 'ExistingResourcesError';
  constructor(readonly violations: Violation[]) {
    super(`${violations.length} ${violations.length === 1 ? 'resource exists' : 'resources exist'} with other content; import with overwrite to update ${violations.length === 1 ? 'it' : 'them'}. Nothing was written`);
  }
}

/**
 * Every resource of the text, validated as a PUT validates it, Meshes first. All or nothing: one bad
 * document throws a ValidationError naming each problem by document (`resource[i]`), resource and field.
 */
export function readImportText(text: string): ImportDocument[] {
  const violations = new ViolationList();
  const documents: ImportDocument[] = [];
  const firstPathByKey = new Map<string, string>();
  parseResourceDocuments(text).forEach((value, index) => {
    for (const [path, item] of itemsOf(value, indexPath('resource', index))) {
      const input = readDocument(item, path, violations);
      if (input === undefined) continue;
      const key = keyOf(input);
      const first = firstPathByKey.get(key);
      if (first !== undefined) {
        violations.add(path, `${describe(input)} is already ${first}`);
        continue;
      }
      firstPathByKey.set(key, path);
      documents.push({ path, input });
    }
  });
  if (documents.length === 0 && violations.isEmpty) violations.add('', 'no resource(s) passed to import');
  violations.throwIfAny(INVALID_TITLE);
  return MESHES_FIRST.flatMap((type) => documents.filter((document) => document.input.type === type));
}

/**
 * Decides per resource of readImportText's documents (create, update, leave alone) against the store, then writes all of it in one
 * transaction through the manager. Updates carry the version read here: a change made in between
 * is a conflict, and nothing is written. Nothing is ever deleted.
 */
export async function importResources(manager: ResourceManager, documents: readonly ImportDocument[], options: ImportOptions = {}): Promise<ImportReport> {
  const stored = new Map<string, Resource>();
  // Meshes always: a mesh-scoped resource may belong to a stored Mesh the import does not carry.
  for (const type of new Set(['Mesh' as const, ...documents.map((document) => document.input.type)])) {
    for (const resource of await manager.list(type)) stored.set(keyOf({ type, mesh: resource.meta.mesh, name: resource.meta.name }), resource);
  }

  const meshes = new Set([...stored.values()].filter(({ type }) => type === 'Mesh').map(({ meta }) => meta.name));
  for (const { input } of documents) if (input.type === 'Mesh') meshes.add(input.name);

  const missingMesh = new ViolationList();
  const existing: Violation[] = [];
  const writes: ResourceInput[] = [];
  const resources: ImportedResource[] = [];
  for (const { path, input } of documents) {
    if (isMeshScoped(input.type) && !meshes.has(input.mesh)) {
      missingMesh.add(joinPath(path, 'mesh'), `${describe(input)}: mesh "${input.mesh}" does not exist and is not in the import`);
    }
    const current = stored.get(keyOf(input));
    const key = { type: input.type, mesh: input.mesh, name: input.name };
    if (current === undefined) {
      writes.push(input);
      resources.push({ ...key, action: 'Created' });
    } else if (isDeepStrictEqual(current.spec, input.spec) && isDeepStrictEqual(current.meta.labels, input.labels)) {
      resources.push({ ...key, action: 'Unchanged' });
    } else {
      existing.push({ field: path, message: `${describe(input)} exists (version ${current.meta.version}) with other content` });
      writes.push({ ...input, version: current.meta.version });
      resources.push({ ...key, action: 'Updated' });
    }
  }
  missingMesh.throwIfAny(INVALID_TITLE);
  if (existing.length > 0 && !options.overwrite) throw new ExistingResourcesError(existing);

  const dryRun = options.dryRun ?? false;
  if (!dryRun && writes.length > 0) await manager.writeAll(writes);
  return { dryRun, resources };
}

/** `resource type="Dataplane" mesh="default" name="x" Created`, as `kumactl apply` prints it. */
export function formatImported({ type, mesh, name, action }: ImportedResource): string {
  return `resource type="${type}" mesh="${mesh}" name="${name}" ${action}`;
}

/** A `kumactl get … -o yaml` list (`items`, `total`, `next`) stands for its items; anything else is one resource. */
function itemsOf(value: unknown, path: string): [string, unknown][] {
  if (isObject(value) && value.type === undefined && Array.isArray(value.items)) {
    return value.items.map((item, index) => [indexPath(joinPath(path, 'items'), index), item]);
  }
  return [[path, value]];
}

/** meshdesk's `version` (in a GET answer) is not imported: the import decides versions itself. */
function readDocument(value: unknown, path: string, violations: ViolationList): ResourceInput | undefined {
  try {
    return validateResource(isObject(value) ? withoutVersion(value) : value);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const what = isObject(value) ? describe(value) : 'resource';
    for (const { field, message } of error.violations) violations.add(joinPath(path, field), `${what}: ${message}`);
    return undefined;
  }
}

function withoutVersion({ version: _version, ...document }: Record<string, unknown>): Record<string, unknown> {
  return document;
}

/** `Dataplane "x" in mesh "default"`, from whatever of type, name and mesh the document has. */
function describe(document: Record<string, unknown> | ResourceInput): string {
  const text = (field: unknown): string | undefined => (typeof field === 'string' && field !== '' ? field : undefined);
  const type = text(document.type) ?? 'resource';
  const name = text(document.name);
  const mesh = text(document.mesh);
  return `${type}${name === undefined ? '' : ` "${name}"`}${mesh === undefined || type === 'Mesh' ? '' : ` in mesh "${mesh}"`}`;
}

function keyOf(key: ResourceKey): string {
  return JSON.stringify([key.type, key.type === 'Mesh' ? '' : key.mesh, key.name]);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
