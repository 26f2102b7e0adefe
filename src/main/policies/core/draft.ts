// Copy-on-write drafts of the shared, frozen resources policy plugins edit (the idea of Immer, in
// the few lines meshdesk needs). Reading a draft gives drafts of its parts, made as they are read;
// writing copies the part written to and the path from it up to the resource, and nothing else.
// Finishing gives the resource itself when nothing changed, else a new frozen object sharing by
// identity every part the edit left alone, so the encoder's cache finds their bytes by identity.
//
// Only plain data is drafted: objects whose prototype is Object.prototype and arrays. Anything
// else (typed arrays, class instances such as values bound late to the proxy) is kept by
// reference, never drafted, copied or frozen.
import type { ProtoJson } from '../../xds/protocol/proto-json.js';

/** A writable view of a resource or of one of its parts. */
export type Draft = Record<string, unknown>;

type Plain = Record<PropertyKey, unknown>;

/** Asks a draft for its DraftedPart (any other object has none). */
const DRAFTED_PART = Symbol('drafted part');

function isPlain(value: unknown): value is Plain {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === Array.prototype;
}

function shallowCopy(value: Plain): Plain {
  return (Array.isArray(value) ? value.slice() : { ...value }) as Plain;
}

function draftedPartOf(value: unknown): DraftedPart | undefined {
  return typeof value === 'object' && value !== null ? ((value as { [DRAFTED_PART]?: DraftedPart })[DRAFTED_PART] ?? undefined) : undefined;
}

/**
 * A resource being edited: change `draft` as a plain object, then `finish()`. The draft's top level
 * is a plain copy whose plain parts are drafts (Proxies): an edit that spreads the whole resource
 * or Object.assign()s over it (MeshHealthCheck) stays on V8's fast paths, where a Proxy would take
 * its generic path, several times slower. An edit that changes anything copies the top level
 * anyway, and finishing compares it with the resource key by key.
 */
export class ResourceDraft {
  readonly draft: Draft;
  readonly #resource: Plain;
  #finished: ProtoJson | undefined;

  constructor(resource: ProtoJson) {
    this.#resource = resource as Plain;
    this.draft = shallowCopy(this.#resource);
    for (const key of Object.keys(this.draft)) {
      const part = this.draft[key];
      if (isPlain(part)) this.draft[key] = draftOf(part, undefined);
    }
  }

  /** The edited resource: the resource itself when the edit changed nothing, else a frozen one sharing every part it left alone. */
  finish(): ProtoJson {
    this.#finished ??= sharing(this.draft, this.#resource, true) as ProtoJson;
    return this.#finished;
  }
}

function draftOf(base: Plain, parent: DraftedPart | undefined): Draft {
  // The target is an empty object or array (for Array.isArray and the prototype), never the frozen
  // base, whose read-only properties the Proxy invariants would hold every trap to.
  return new Proxy((Array.isArray(base) ? [] : {}) as Plain, new DraftedPart(base, parent)) as Draft;
}

/**
 * A drafted part of the resource, and the handler of its Proxy. Until a write, reads go to the
 * base, and the drafts of its plain parts are kept by key; the first write here or below copies
 * the base (with those drafts in their places) here and in every draft above that has no copy yet.
 */
class DraftedPart implements ProxyHandler<Plain> {
  #copy: Plain | undefined;
  #children: Map<PropertyKey, Draft> | undefined;
  /** What finishing gave, once: a draft may be reachable from several places of the result. */
  #finished: ProtoJson | undefined;

  constructor(
    readonly base: Plain,
    readonly parent: DraftedPart | undefined,
  ) {}

  get(_target: Plain, key: PropertyKey): unknown {
    return key === DRAFTED_PART ? this : this.#read(key);
  }

  has(_target: Plain, key: PropertyKey): boolean {
    return key in this.#current();
  }

  ownKeys(): (string | symbol)[] {
    return Reflect.ownKeys(this.#current());
  }

  getOwnPropertyDescriptor(_target: Plain, key: PropertyKey): PropertyDescriptor | undefined {
    const descriptor = Reflect.getOwnPropertyDescriptor(this.#current(), key);
    if (descriptor === undefined) return undefined;
    // An array's length is the one property the (array) target has: it stays non-configurable, as there.
    const configurable = key !== 'length' || !Array.isArray(this.base);
    return { value: this.#read(key), writable: true, enumerable: descriptor.enumerable, configurable };
  }

  set(_target: Plain, key: PropertyKey, value: unknown): boolean {
    if (Object.hasOwn(this.#current(), key) && Object.is(this.#held(key), value)) return true;
    this.#copied()[key] = value;
    return true;
  }

  deleteProperty(_target: Plain, key: PropertyKey): boolean {
    if (Object.hasOwn(this.#current(), key)) delete this.#copied()[key];
    return true;
  }

  defineProperty(_target: Plain, key: PropertyKey, descriptor: PropertyDescriptor): boolean {
    return Reflect.defineProperty(this.#copied(), key, descriptor);
  }

  finished(): ProtoJson {
    this.#finished ??= this.#copy === undefined ? (this.base as ProtoJson) : (sharing(this.#copy, this.base, true) as ProtoJson);
    return this.#finished;
  }

  #current(): Plain {
    return this.#copy ?? this.base;
  }

  /** A part as read: a draft of it when it is the base's own plain part, as it is otherwise. */
  #read(key: PropertyKey): unknown {
    const current = this.#current();
    const value = current[key];
    if (value !== this.base[key] || !isPlain(value) || !Object.hasOwn(current, key)) return value;
    if (this.#copy !== undefined) return (this.#copy[key] = draftOf(value, this));
    this.#children ??= new Map();
    let child = this.#children.get(key);
    if (child === undefined) this.#children.set(key, (child = draftOf(value, this)));
    return child;
  }

  /** The value at `key` as the draft holds it (its part's draft once read), to tell a write that changes nothing. */
  #held(key: PropertyKey): unknown {
    return this.#copy !== undefined ? this.#copy[key] : (this.#children?.get(key) ?? this.base[key]);
  }

  /** This part's copy, made (with the copies above it) at the first write. */
  #copied(): Plain {
    for (let part: DraftedPart | undefined = this; part !== undefined && part.#copy === undefined; part = part.parent) {
      const copy = shallowCopy(part.base);
      for (const [key, child] of part.#children ?? []) copy[key] = child;
      part.#copy = copy;
      part.#children = undefined;
    }
    return this.#copy!;
  }
}

/**
 * A value of the edited resource as it ends up: drafts replaced by what they finish as, and new
 * plain values, frozen, that are equal to the base's part at the same place replaced by that part
 * (a field set to what it was stays the very object). Frozen values are shared parts already: they
 * hold no draft.
 */
function settled(value: unknown, original: unknown): unknown {
  if (value === original) return value;
  const drafted = draftedPartOf(value);
  if (drafted !== undefined) return drafted.finished();
  if (!isPlain(value) || Object.isFrozen(value)) return value;
  return sharing(value, original, false);
}

/** `value` settled part by part against `original`; `owned`: `value` is a draft's copy, changed in place. */
function sharing(value: Plain, original: unknown, owned: boolean): unknown {
  const base = isPlain(original) && Array.isArray(original) === Array.isArray(value) ? original : undefined;
  const keys = Object.keys(value);
  let result = value;
  let sameValues = base !== undefined;
  for (const key of keys) {
    const part = value[key];
    const settledPart = settled(part, base?.[key]);
    if (settledPart !== part) {
      // A value the edit did not make (a rule's conf) is not changed: its settled form is a copy.
      if (result === value && !owned) result = shallowCopy(value);
      result[key] = settledPart;
    }
    if (sameValues && settledPart !== base![key]) sameValues = false;
  }
  // Same keys in the same order too: the JSON the history and the UI show stays exactly the edit's.
  return sameValues && sameKeys(keys, Object.keys(base!)) ? base : Object.freeze(result);
}

function sameKeys(keys: readonly string[], baseKeys: readonly string[]): boolean {
  return keys.length === baseKeys.length && keys.every((key, index) => key === baseKeys[index]);
}
