import type { MeshContext } from '../context/mesh-context.js';

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
   * The context of the same mesh that was newest when this one was first asked for a memo, kept
   * until a newer tick's context exists: then nothing older than two contexts stays reachable.
   */
  predecessor: MeshContext | undefined;
  memos: Map<string, CarriedMemo<unknown, unknown>>;
}

const generations = new WeakMap<MeshContext, Generation>();
/**
 * By mesh name, the newest context asked for a memo. Held, not weakly: the cache drops a context
 * as soon as it has built the next one, before any proxy's tick asks the next one for a memo.
 */
const newest = new Map<string, MeshContext>();
const besideTicks = new WeakSet<MeshContext>();

/**
 * Marks a context built beside the mesh's ticks (a policy preview's): it carries from the newest
 * context like any other, but the next tick still carries from the tick before, not from it.
 */
export function besideTheTicks(context: MeshContext): MeshContext {
  besideTicks.add(context);
  return context;
}

/**
 * The context's memo `name`, carrying from the memo of that name of the mesh's previous context.
 * Which context is "previous" only decides how much is found again, never what (see besideTheTicks).
 */
export function carriedMemo<K, V>(context: MeshContext, name: string, entries: () => MemoMap<K, V>): CarriedMemo<K, V> {
  let generation = generations.get(context);
  if (generation === undefined) {
    const mesh = context.mesh.meta.name;
    const before = newest.get(mesh);
    generation = { predecessor: before, memos: new Map() };
    generations.set(context, generation);
    if (!besideTicks.has(context)) {
      newest.set(mesh, context);
      // `before` carries from nothing any more: only this context and `before` stay reachable.
      const older = before && generations.get(before);
      if (older) {
        older.predecessor = undefined;
        for (const memo of older.memos.values()) memo.forgetPrevious();
      }
    }
  }
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
