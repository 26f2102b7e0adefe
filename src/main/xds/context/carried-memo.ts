import { underlyingContext } from './context-view.js';
import type { MeshResource } from '../../../shared/resources.js';
import type { MeshContext } from './mesh-context.js';

/** What a memo keeps its entries in: a Map for keys by content, a WeakMap for keys by object. */
export interface MemoMap<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/**
 * A memo of a mesh's generation that outlives its MeshContext by one context. The next context of
 * the mesh starts an empty memo and takes from this one what it asks for again; what nobody asks
 * for again goes with this context. A tick after a change (a new context, equal in most of its
 * content) then finds the objects the last tick made, and with them their shared edits and
 * encoded bytes, while memory holds at most two contexts' worth however many changes a mesh sees.
 *
 * Only for memos whose keys name everything a value depends on (content, or objects fixed in
 * content): a memo that reads the context itself belongs to memoizedForContext.
 */
export class CarriedMemo<K, V> {
  readonly #current: MemoMap<K, V>;
  /** The previous context's entries (its map only), until this context is the previous one of a newer. */
  #previous: MemoMap<K, V> | undefined;

  constructor(entries: () => MemoMap<K, V>, previous?: CarriedMemo<K, V>) {
    this.#current = entries();
    this.#previous = previous === undefined ? undefined : previous.#current;
  }

  /** The value for `key`, from this context or, carried over into it, from the previous one. */
  get(key: K): V | undefined {
    const value = this.#current.get(key);
    if (value !== undefined || this.#previous === undefined) return value;
    const carried = this.#previous.get(key);
    if (carried !== undefined) this.#current.set(key, carried);
    return carried;
  }

  /** This context's value alone, for a caller that carries only parts of the previous one's (see `previous`). */
  current(key: K): V | undefined {
    return this.#current.get(key);
  }

  /** The previous context's value alone, not carried: for a caller that carries only a part of it. */
  previous(key: K): V | undefined {
    return this.#previous?.get(key);
  }

  set(key: K, value: V): void {
    this.#current.set(key, value);
  }

  /** Lets go of the previous context's entries: a newer context carries from this one now. */
  forgetPrevious(): void {
    this.#previous = undefined;
  }
}

interface Generation {
  /**
   * The context this one carries from: the mesh's context before it, as whoever builds the
   * contexts said (`follows`). Held until a context follows this one: then nothing older than two
   * contexts stays reachable.
   */
  predecessor: MeshContext | undefined;
  memos: Map<string, CarriedMemo<unknown, unknown>>;
}

const generations = new WeakMap<MeshContext, Generation>();

function generationOf(view: MeshContext): Generation {
  // A reader's view of a context (context-view.ts) carries what its context carries.
  const context = underlyingContext(view);
  let generation = generations.get(context);
  if (generation === undefined) generations.set(context, (generation = { predecessor: undefined, memos: new Map() }));
  return generation;
}

/**
 * Makes `next`, a new context of a mesh, carry from `previous`, the mesh's context before it (the
 * cache links each context it builds to the last one); `previous` then lets go of what it carried
 * from. A context nobody links carries from nothing. Linked by whoever builds contexts, not found
 * by mesh name: a deleted mesh's contexts, or a benchmark's thousand meshes, are kept by nothing.
 */
export function follows(next: MeshContext, previous: MeshContext): MeshContext {
  generationOf(next).predecessor = previous;
  const older = generationOf(previous);
  older.predecessor = undefined;
  for (const memo of older.memos.values()) memo.forgetPrevious();
  return next;
}

/**
 * Makes a context built beside the mesh's ticks (a policy preview's) carry from `context`, which
 * goes on carrying from its own predecessor: the next tick's context still follows `context`.
 */
export function besideOf(preview: MeshContext, context: MeshContext): MeshContext {
  generationOf(preview).predecessor = context;
  return preview;
}

/**
 * The context's memo `name`, carrying from the memo of that name of the context it follows.
 * Which context that is only decides how much is found again, never what.
 */
export function carriedMemo<K, V>(context: MeshContext, name: string, entries: () => MemoMap<K, V>): CarriedMemo<K, V> {
  const generation = generationOf(context);
  let memo = generation.memos.get(name) as CarriedMemo<K, V> | undefined;
  if (memo === undefined) {
    const { predecessor } = generation;
    const previous = predecessor && (generations.get(predecessor)?.memos.get(name) as CarriedMemo<K, V> | undefined);
    memo = new CarriedMemo(entries, previous);
    generation.memos.set(name, memo as CarriedMemo<unknown, unknown>);
  }
  return memo;
}

const canonicalByObject = new WeakMap<object, object>();

/**
 * The object equal in content to `value` that the mesh's previous context had (the very same
 * object), else `value`, kept for the next context. A new MeshContext builds every resource and
 * rule anew, while edits, derived results and encoded bytes are all found by object: this is
 * where a tick after a change gets back the objects of everything that did not change.
 * `value` must be immutable from here on, as generated resources and rules are, and `contentOf`
 * must tell every two different values apart (JSON.stringify does for proto3 JSON, not for Maps).
 */
export function canonical<T extends object>(context: MeshContext, kind: string, value: T, contentOf: (value: T) => string = JSON.stringify): T {
  const known = canonicalByObject.get(value);
  if (known !== undefined) return known as T;
  const byContent = carriedMemo<string, object>(context, `canonical:${kind}`, () => new Map());
  const key = contentOf(value);
  let found = byContent.get(key);
  if (found === undefined) byContent.set(key, (found = value));
  canonicalByObject.set(value, found);
  return found as T;
}

/** JSON text of a value whose parts may be Maps (a rule's originByMatches), each as its entries. */
export function jsonWithMaps(value: unknown): string {
  return JSON.stringify(value, (_key, part: unknown) => (part instanceof Map ? { map: [...part] } : part));
}

/**
 * The context's mesh as the canonical object: the previous context's while its content is the same.
 * Under the kind plugin-replay.ts canonicalizes declared context parts with, so the generators and
 * the plugins' declared `mesh` part make one JSON text of it per context, and find one object.
 */
export function canonicalMesh(context: MeshContext): MeshResource {
  return canonical(context, 'context:mesh', context.mesh, jsonWithMaps);
}
