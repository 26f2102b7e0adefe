import type { PolicyType } from '../../../shared/policy-types.js';
import type { MeshContext } from './mesh-context.js';

/** A part of a MeshContext, by what it holds: a reader declares the parts it reads (ContextReads). */
export type ContextPart = 'mesh' | 'protocols' | 'endpoints' | 'dataplanes' | 'policies';

const PART_FIELDS: Readonly<Record<ContextPart, keyof MeshContext>> = {
  mesh: 'mesh',
  protocols: 'protocolByService',
  endpoints: 'endpointsByService',
  dataplanes: 'dataplanesByName',
  policies: 'policies',
};

/**
 * What of a MeshContext a reader reads: whole parts, and the policies of some types by name
 * (`policiesByType.get(type)`); the `policies` part reads every type's.
 */
export interface ContextReads {
  parts: readonly ContextPart[];
  policyTypes?: readonly PolicyType[];
}

const views = new WeakMap<MeshContext, Map<string, MeshContext>>();
const underlying = new WeakMap<MeshContext, MeshContext>();

/**
 * The context as a reader that declared `reads` sees it: an object with the context's fields, of
 * which reading one it did not declare throws, naming what it read. What a reader declares is then
 * all it can depend on, which is what lets plugin-replay.ts replay a plugin's last run when those
 * parts are unchanged. One view per context and declaration, so that what is memoized per context
 * (memoizedForContext, keyed by the view) is shared by the readers that declare the same, and was
 * computed only through reads they declared; what is carried from context to context is kept by
 * the context itself (underlyingContext).
 */
export function contextView(context: MeshContext, reads: ContextReads): MeshContext {
  const real = underlyingContext(context);
  const key = `${[...reads.parts].sort().join()}|${[...(reads.policyTypes ?? [])].sort().join()}`;
  let byReads = views.get(real);
  if (byReads === undefined) views.set(real, (byReads = new Map()));
  let view = byReads.get(key);
  if (view === undefined) {
    view = restricted(real, reads);
    underlying.set(view, real);
    byReads.set(key, view);
  }
  return view;
}

/** The context a view shows (itself for a context that is none): what memos carried across contexts are kept by. */
export function underlyingContext(context: MeshContext): MeshContext {
  return underlying.get(context) ?? context;
}

function describe({ parts, policyTypes = [] }: ContextReads): string {
  const all = [...parts, ...policyTypes.map((type) => `${type} policies`)];
  return all.length === 0 ? 'nothing' : all.join(', ');
}

function restricted(context: MeshContext, reads: ContextReads): MeshContext {
  const fields = new Set<PropertyKey>(reads.parts.map((part) => PART_FIELDS[part]));
  const everyType = reads.parts.includes('policies');
  const types = new Set(reads.policyTypes);
  const refuse = (what: string): never => {
    throw new Error(`reads the mesh context's ${what}, which it does not declare (it declares ${describe(reads)})`);
  };
  const policiesByType = everyType
    ? context.policiesByType
    : new Proxy(context.policiesByType, {
        get(target, property) {
          if (property === 'get' || property === 'has') {
            return (type: PolicyType) => (types.has(type) ? target[property](type) : refuse(`${type} policies`));
          }
          return refuse('policies of every type');
        },
      });
  // A plain object, not a Proxy: plugins read the declared parts in their hottest loops.
  const view = {} as MeshContext;
  for (const field of Object.keys(context) as (keyof MeshContext)[]) {
    if (field === 'policiesByType') Object.defineProperty(view, field, { value: policiesByType, enumerable: true });
    else if (fields.has(field)) Object.defineProperty(view, field, { value: context[field], enumerable: true });
    else Object.defineProperty(view, field, { get: () => refuse(field) });
  }
  return view;
}
