import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import type { XdsTypeUrl } from '../../xds/protocol/type-urls.js';
import { CarriedMemo } from '../../xds/context/carried-memo.js';
import type { EnvoyResources, FieldSet } from './envoy-resources.js';
import { ResourceDraft, type Draft } from './draft.js';

/** The fields an edit set, and the policy items behind each (EnvoyResources.put's `set`). */
export type FieldsSet = FieldSet[];

interface Edited {
  resource: ProtoJson;
  set: FieldsSet;
}

/**
 * By resource object, then by each part of the key in turn (null: nothing to change). Nested maps,
 * not one joined string: the parts are mostly the very strings `keyOf` keeps, whose hashes V8
 * caches, where a joined key would be a new long string to hash on every call.
 */
interface EditsByKey {
  next: Map<string, EditsByKey>;
  edited?: Edited | null;
}

/** Edits by resource for resources of no context (tests that edit by hand). */
const contextless = new CarriedMemo<ProtoJson, EditsByKey>(() => new WeakMap());

/**
 * Puts resource `name` as `edit` changes a draft of it (draft.ts: copied only where written); an
 * edit that returns undefined changed nothing and the resource stays as it is. `key` names the edit
 * (its plugin and what it does) and everything it reads besides the resource (the rules' JSON, the
 * protocol), so it runs once per resource object and key: every proxy sharing a generated resource
 * and the same rules gets the same edited object, as generators share theirs (and the encoded
 * resource cache finds its bytes by identity).
 *
 * The edits are kept per context and carried to the mesh's next context edit by edit (see
 * CarriedMemo): a resource equal to the last tick's is its very object (see `canonical`), so a tick
 * after a change finds every edit whose resource and key did not change, and an edit nobody made
 * again goes with the older context, not with the resource, which may live on for many changes.
 */
export function putEdited(
  resources: EnvoyResources,
  typeUrl: XdsTypeUrl,
  name: string,
  key: readonly string[],
  edit: (draft: Draft) => FieldsSet | undefined,
): void {
  const resource = resources.get(typeUrl, name);
  if (resource === undefined) return;
  const memo = resources.carriedMemo<ProtoJson, EditsByKey>('shared-edits', () => new WeakMap()) ?? contextless;
  // Not `get`, which would carry the previous context's whole tree: only the edits asked for again are (previousEdit).
  let level = memo.current(resource);
  if (level === undefined) memo.set(resource, (level = { next: new Map() }));
  for (const part of key) {
    let next: EditsByKey | undefined = level.next.get(part);
    if (next === undefined) level.next.set(part, (next = { next: new Map() }));
    level = next;
  }
  let edited = level.edited;
  if (edited === undefined) {
    edited = previousEdit(memo, resource, key) ?? editNow(resource, edit);
    level.edited = edited;
  }
  if (edited !== null) resources.put(typeUrl, name, edited.resource, edited.set);
}

/** The edit the previous context made of this resource under this key, if it made it. */
function previousEdit(memo: CarriedMemo<ProtoJson, EditsByKey>, resource: ProtoJson, key: readonly string[]): Edited | null | undefined {
  let level = memo.previous(resource);
  for (const part of key) level = level?.next.get(part);
  return level?.edited;
}

function editNow(resource: ProtoJson, edit: (draft: Draft) => FieldsSet | undefined): Edited | null {
  const draft = new ResourceDraft(resource);
  const set = edit(draft.draft);
  return set === undefined ? null : { resource: draft.finish(), set };
}

const keys = new WeakMap<object, string>();

/**
 * A key part naming a rule (or any value an edit reads) by content, so that proxies whose rules
 * are equal share edits; computed once per object (rules are immutable), '' for undefined.
 */
export function keyOf(value: object | undefined): string {
  if (value === undefined) return '';
  let key = keys.get(value);
  if (key === undefined) keys.set(value, (key = JSON.stringify(value)));
  return key;
}
