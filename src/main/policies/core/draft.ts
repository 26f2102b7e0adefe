// Copy-on-write drafts of the shared, frozen resources policy plugins edit (the idea of Immer, in
// the few lines meshdesk needs). Reading a draft gives drafts of its parts, made as they are read;
// writing copies one object, then the path from it up to the root, and nothing else. Finishing
// gives the resource itself when nothing changed, else a new frozen object sharing by identity
// every part the edit left alone, so the encoder's cache finds their bytes by identity.
//
// Only plain data is drafted: objects whose prototype is Object.prototype and arrays. Anything
// else (typed arrays, class instances such as values bound late to the proxy) is kept by
// reference, never drafted, copied or frozen.
import type { ProtoJson } from '../../xds/protocol/proto-json.js';

/** A writable view of a resource or of one of its parts. */
export type Draft = Record<string, unknown>;

type Plain = Record<PropertyKey, unknown>;

interface DraftState {
  readonly base: Plain;
  readonly parent: DraftState | undefined;
  /** The shallow copy the writes go to, made at the first write here or below: holds the drafts of its parts. */
  copy: Plain | undefined;
  /** Before the copy: the drafts of the parts read so far, by key. */
  children: Map<PropertyKey, Draft> | undefined;
  /** What finishing gave, once: a draft may be reachable from several places of the result. */
  finished: ProtoJson | undefined;
}

/** Where a draft's proxy target keeps its state, for the one handler every draft shares. */
const STATE = Symbol('draft state');
type Target = object & { [STATE]: DraftState };

function isPlain(value: unknown): value is Plain {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === Array.prototype;
}

function stateOf(value: unknown): DraftState | undefined {
  return typeof value === 'object' && value !== null ? ((value as Partial<Target>)[STATE] ?? undefined) : undefined;
}

function current(state: DraftState): Plain {
  return state.copy ?? state.base;
}

function newDraft(base: Plain, parent: DraftState | undefined): Draft {
  // The target is an empty object or array of the base's kind (Array.isArray, prototype), never the
  // frozen base itself, whose read-only properties the proxy invariants would hold every trap to.
  const target = (Array.isArray(base) ? [] : {}) as Target;
  target[STATE] = { base, parent, copy: undefined, children: undefined, finished: undefined };
  return new Proxy(target, HANDLER) as unknown as Draft;
}

function shallowCopy(value: Plain): Plain {
  return (Array.isArray(value) ? value.slice() : { ...value }) as Plain;
}

/** Copies the state and, up to the root, every draft above it that has no copy yet. */
function prepareCopies(state: DraftState | undefined): void {
  while (state !== undefined && state.copy === undefined) {
    const copy = shallowCopy(state.base);
    for (const [key, child] of state.children ?? []) copy[key] = child;
    state.copy = copy;
    state.children = undefined;
    state = state.parent;
  }
}

/** A part read from a draft: a draft of it when it is the base's own plain part, as it is otherwise. */
function read(state: DraftState, key: PropertyKey): unknown {
  const value = current(state)[key];
  if (!isPlain(value) || value !== state.base[key] || !Object.hasOwn(state.base, key)) return value;
  if (state.copy !== undefined) return (state.copy[key] = newDraft(value, state));
  state.children ??= new Map();
  let child = state.children.get(key);
  if (child === undefined) state.children.set(key, (child = newDraft(value, state)));
  return child;
}

/** The value at `key` as the draft holds it (its part's draft once read), to tell a write that changes nothing. */
function held(state: DraftState, key: PropertyKey): unknown {
  return state.copy !== undefined ? state.copy[key] : (state.children?.get(key) ?? state.base[key]);
}

const HANDLER: ProxyHandler<Target> = {
  get: (target, key) => (key === STATE ? target[STATE] : read(target[STATE], key)),
  has: (target, key) => key in current(target[STATE]),
  ownKeys: (target) => Reflect.ownKeys(current(target[STATE])),
  getOwnPropertyDescriptor: (target, key) => {
    const state = target[STATE];
    const descriptor = Reflect.getOwnPropertyDescriptor(current(state), key);
    if (descriptor === undefined) return undefined;
    // An array's length is the one property the (array) target has: it stays non-configurable, as there.
    const isLength = key === 'length' && Array.isArray(state.base);
    return { value: read(state, key), writable: true, enumerable: descriptor.enumerable, configurable: !isLength };
  },
  set: (target, key, value) => {
    const state = target[STATE];
    if (Object.hasOwn(current(state), key) && Object.is(held(state, key), value)) return true;
    prepareCopies(state);
    state.copy![key] = value;
    return true;
  },
  deleteProperty: (target, key) => {
    const state = target[STATE];
    if (!Object.hasOwn(current(state), key)) return true;
    prepareCopies(state);
    delete state.copy![key];
    return true;
  },
  defineProperty: (_target, key) => {
    throw new TypeError(`a resource draft takes plain assignments only, not Object.defineProperty (of ${String(key)})`);
  },
};

/** A draft of `resource`: edit it as a plain object, then `finishDraft` it. */
export function createDraft(resource: ProtoJson): Draft {
  return newDraft(resource as Plain, undefined);
}

/** The edited resource: `resource` itself when the edit changed nothing, else a frozen one sharing every part it left alone. */
export function finishDraft(draft: Draft): ProtoJson {
  const state = stateOf(draft);
  if (state === undefined) throw new TypeError('finishDraft takes a draft made by createDraft');
  return finished(state);
}

function finished(state: DraftState): ProtoJson {
  state.finished ??= state.copy === undefined ? state.base : (sharing(state.copy, state.base, true) as ProtoJson);
  return state.finished;
}

/**
 * A value of the edited resource as it ends up: drafts replaced by what they finish as, and new
 * plain values, frozen, that are equal to the base's part at the same place replaced by that part
 * (a field set to what it was stays the very object). Frozen values are shared parts already: they
 * hold no draft.
 */
function settled(value: unknown, original: unknown): unknown {
  if (value === original) return value;
  const state = stateOf(value);
  if (state !== undefined) return finished(state);
  if (!isPlain(value) || Object.isFrozen(value)) return value;
  return sharing(value, original, false);
}

/** `value` settled part by part against `original`; `owned`: `value` is a draft's copy, changed in place. */
function sharing(value: Plain, original: unknown, owned: boolean): unknown {
  const base = isPlain(original) && Array.isArray(original) === Array.isArray(value) ? original : undefined;
  const keys = Object.keys(value);
  const baseKeys = base === undefined ? [] : Object.keys(base);
  let result = value;
  let sameAsBase = base !== undefined && keys.length === baseKeys.length;
  keys.forEach((key, index) => {
    const part = value[key];
    const settledPart = settled(part, base !== undefined && Object.hasOwn(base, key) ? base[key] : undefined);
    if (settledPart !== part) {
      // A value the edit did not make (a rule's conf) is not changed: its settled form is a copy.
      if (result === value && !owned) result = shallowCopy(value);
      result[key] = settledPart;
    }
    // Same keys in the same order: the JSON the history and the UI show stays exactly the edit's.
    if (sameAsBase && (baseKeys[index] !== key || settledPart !== base![key])) sameAsBase = false;
  });
  return sameAsBase ? base : Object.freeze(result);
}
