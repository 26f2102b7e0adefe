import type { PolicyType } from '../../../shared/policy-types.js';
import type { Endpoint } from '../../xds/context/mesh-context.js';
import type { PolicyResource } from './policy.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import type { XdsTypeUrl } from '../../xds/protocol/type-urls.js';
import type { NamedResource } from '../../xds/generate/resources.js';
import { attributionsOf, type Attribution, type EnvoyResources, type FieldSet } from './envoy-resources.js';
import type { ResourceChanges } from './resource-changes.js';

type Read =
  | { kind: 'get'; typeUrl: XdsTypeUrl; name: string; resource: ProtoJson | undefined }
  | { kind: 'names'; typeUrl: XdsTypeUrl; names: readonly string[] }
  | { kind: 'list' | 'listPut'; typeUrl: XdsTypeUrl; entries: readonly NamedResource[] }
  | { kind: 'setBy'; typeUrl: XdsTypeUrl; name: string; type: PolicyType; found: boolean }
  | { kind: 'endpoints'; service: string; endpoints: readonly Endpoint[] }
  | { kind: 'policy'; type: PolicyType; name: string; policy: PolicyResource | undefined };

type Write =
  | { kind: 'put'; typeUrl: XdsTypeUrl; name: string; resource: ProtoJson; set: readonly FieldSet[]; /** The name was not there before. */ added: boolean }
  | { kind: 'remove'; typeUrl: XdsTypeUrl; name: string }
  | { kind: 'rename'; typeUrl: XdsTypeUrl; from: string; to: string; resource: ProtoJson };

/** What a run put into one resource: its last put's resource and fields set, and how many puts. */
export interface PutsOfName {
  resource: ProtoJson;
  set: readonly FieldSet[];
  count: number;
}

/** The names a run read by type, and the types it read whole: made once, when a change set asks. */
interface ReadIndex {
  names: Map<XdsTypeUrl, Set<string>>;
  wholeTypes: Set<XdsTypeUrl>;
  /** What the run read of the context by name (a service's endpoints, a policy). */
  contextReads: ContextRead[];
}

export type ContextRead = Extract<Read, { kind: 'endpoints' | 'policy' }>;

/** Whether `resources`' context has what the run read of it by name: the very (canonical) object. */
function sameContextRead(read: ContextRead, resources: EnvoyResources): boolean {
  return read.kind === 'endpoints' ? resources.endpointsOf(read.service) === read.endpoints : resources.policyNamed(read.type, read.name) === read.policy;
}

/**
 * What one policy plugin's run read of a proxy's resources, as they were before it ran, and what
 * it wrote, in order (EnvoyResources records into it while the plugin runs). A run whose reads all
 * find the very same objects again made the very same writes: plugin-replay.ts replays them.
 */
export class ResourceRecording {
  readonly #reads: Read[] = [];
  readonly #writes: Write[] = [];
  /** Names read or written, by type: a second read of a name finds what the first did, or the run's own write. */
  readonly #seen = new Map<XdsTypeUrl, Set<string>>();
  readonly #wroteTypes = new Set<XdsTypeUrl>();
  /** A read that cannot be checked against the resources before the run (a list of a type after writing to it). */
  #uncheckable = false;
  #attributions: readonly Attribution[] | undefined;
  #readIndex: ReadIndex | undefined;
  #written: Map<XdsTypeUrl, Set<string>> | undefined;
  /** Made once the run is over (by whoever asks first): a recording does not change after its run. */
  #puts: Map<XdsTypeUrl, Map<string, PutsOfName>> | undefined;
  readonly #contextRead = new Set<string>();

  get checkable(): boolean {
    return !this.#uncheckable;
  }

  read(typeUrl: XdsTypeUrl, name: string, resource: ProtoJson | undefined): void {
    const seen = this.#seenOf(typeUrl);
    if (seen.has(name)) return;
    seen.add(name);
    this.#reads.push({ kind: 'get', typeUrl, name, resource });
  }

  readWhole(read: Extract<Read, { kind: 'names' | 'list' | 'listPut' }>): void {
    if (this.#wroteTypes.has(read.typeUrl)) this.#uncheckable = true;
    else this.#reads.push(read);
  }

  /** Whether a policy type set a field of a resource, unless the run itself wrote (or renamed) that resource. */
  readSetBy(read: Omit<Extract<Read, { kind: 'setBy' }>, 'kind'>): void {
    if (this.#wrote(read.typeUrl, read.name)) this.#uncheckable = true;
    else this.#reads.push({ kind: 'setBy', ...read });
  }

  /**
   * What the run read of the context by name, as the context's canonical object: a service's
   * endpoints (EnvoyResources.endpointsOf), a policy (policyNamed). The first read of each counts.
   */
  readContext(read: ContextRead): void {
    const key = read.kind === 'endpoints' ? `endpoints\n${read.service}` : `policy\n${read.type}\n${read.name}`;
    if (!this.#contextRead.has(key)) this.#reads.push(read);
    this.#contextRead.add(key);
  }

  /** A read of what no recording can compare (every field every policy set): the run cannot be replayed. */
  readUncheckable(): void {
    this.#uncheckable = true;
  }

  wrote(write: Write): void {
    this.#writes.push(write);
    this.#wroteTypes.add(write.typeUrl);
    const seen = this.#seenOf(write.typeUrl);
    if (write.kind === 'rename') seen.add(write.from).add(write.to);
    else seen.add(write.name);
  }

  /** Every read finds the very object (or absence, or names in the same order) in `resources` that it found. */
  readsSameIn(resources: EnvoyResources): boolean {
    return this.#reads.every((read) => {
      switch (read.kind) {
        case 'get':
          return resources.get(read.typeUrl, read.name) === read.resource;
        case 'names':
          return sameList(resources.names(read.typeUrl), read.names, (a, b) => a === b);
        case 'list':
          return sameList(resources.list(read.typeUrl), read.entries, sameEntry);
        case 'listPut':
          return sameList(resources.listPut(read.typeUrl), read.entries, sameEntry);
        case 'setBy':
          return resources.setByPolicyOf(read.typeUrl, read.name, read.type) === read.found;
        case 'endpoints':
        case 'policy':
          return sameContextRead(read, resources);
      }
    });
  }

  /**
   * Whether the run read (or asked what a policy set of) a resource `changes` names, read whole a
   * type it names a resource of, or read by name what `resources`' context now has another of (a
   * service's endpoints, a policy): a run that did not can be replayed over a state changed only there.
   */
  readsAnyOf(changes: ResourceChanges, resources: EnvoyResources): boolean {
    const { names, wholeTypes, contextReads } = (this.#readIndex ??= this.#indexReads());
    if (!contextReads.every((read) => sameContextRead(read, resources))) return true;
    for (const [typeUrl, changed] of changes.byType()) {
      if (changed.size === 0) continue;
      if (wholeTypes.has(typeUrl)) return true;
      const read = names.get(typeUrl);
      if (read !== undefined) for (const name of changed) if (read.has(name)) return true;
    }
    return false;
  }

  #indexReads(): ReadIndex {
    const index: ReadIndex = { names: new Map(), wholeTypes: new Set(), contextReads: [] };
    for (const read of this.#reads) {
      if (read.kind === 'endpoints' || read.kind === 'policy') index.contextReads.push(read);
      else if (read.kind !== 'get' && read.kind !== 'setBy') index.wholeTypes.add(read.typeUrl);
      else if (index.names.has(read.typeUrl)) index.names.get(read.typeUrl)!.add(read.name);
      else index.names.set(read.typeUrl, new Set([read.name]));
    }
    return index;
  }

  /** Whether the run renamed a resource: a rename rewrites earlier plugins' attributions, which no change set follows. */
  get renames(): boolean {
    return this.#writes.some((write) => write.kind === 'rename');
  }

  /** The names the run wrote, by type. */
  writtenNames(): ReadonlyMap<XdsTypeUrl, ReadonlySet<string>> {
    if (this.#written === undefined) {
      const written = new Map<XdsTypeUrl, Set<string>>();
      const add = (typeUrl: XdsTypeUrl, name: string) => (written.get(typeUrl) ?? written.set(typeUrl, new Set()).get(typeUrl)!).add(name);
      for (const write of this.#writes) {
        if (write.kind === 'rename') add(write.typeUrl, write.from), add(write.typeUrl, write.to);
        else add(write.typeUrl, write.name);
      }
      this.#written = written;
    }
    return this.#written;
  }

  /**
   * Compares this run's writes with `last`'s, write by write, telling `each` whether a write wrote
   * the very same thing (resource and fields set); false when they differ in what they write where
   * (another kind, type or name, or another number of writes).
   */
  writesAlike(last: ResourceRecording, each: (typeUrl: XdsTypeUrl, name: string, same: boolean) => void): boolean {
    const [mine, theirs] = [this.#writes, last.#writes];
    if (mine.length !== theirs.length) return false;
    for (let at = 0; at < mine.length; at++) {
      const [write, before] = [mine[at]!, theirs[at]!];
      if (write.kind !== before.kind || write.typeUrl !== before.typeUrl || write.kind === 'rename' || before.kind === 'rename') return false;
      if (write.name !== before.name) return false;
      each(write.typeUrl, write.name, write.kind === 'remove' || (write.resource === (before as typeof write).resource && sameFieldsSet(write.set, (before as typeof write).set)));
    }
    return true;
  }

  /** Whether every write replaced a resource that was there: the run changed values, not which names there are. */
  get replacesOnly(): boolean {
    return this.#writes.every((write) => write.kind === 'put' && !write.added);
  }

  /** Each name the run put, by type: the resource and fields set of its last put, and how many puts it had. */
  puts(): ReadonlyMap<XdsTypeUrl, ReadonlyMap<string, PutsOfName>> {
    return (this.#puts ??= this.#putsByName());
  }

  #putsByName(): Map<XdsTypeUrl, Map<string, PutsOfName>> {
    const puts = new Map<XdsTypeUrl, Map<string, PutsOfName>>();
    for (const write of this.#writes) {
      if (write.kind !== 'put') continue;
      if (!puts.has(write.typeUrl)) puts.set(write.typeUrl, new Map());
      const byName = puts.get(write.typeUrl)!;
      byName.set(write.name, { resource: write.resource, set: write.set, count: (byName.get(write.name)?.count ?? 0) + 1 });
    }
    return puts;
  }

  /** The fields the run's puts set, as EnvoyResources attributes them: found once per recording. */
  attributions(): readonly Attribution[] {
    if (this.#attributions === undefined) {
      const attributions: Attribution[] = [];
      for (const write of this.#writes) if (write.kind === 'put') attributionsOf(write.typeUrl, write.name, write.set, attributions);
      this.#attributions = attributions;
    }
    return this.#attributions;
  }

  /** Makes the recorded writes again, in order: what the run did, for a run whose reads are the same. */
  replayInto(resources: EnvoyResources): void {
    for (const write of this.#writes) {
      if (write.kind === 'put') resources.put(write.typeUrl, write.name, write.resource, write.set);
      else if (write.kind === 'remove') resources.remove(write.typeUrl, write.name);
      else resources.rename(write.typeUrl, write.from, write.to, write.resource);
    }
  }

  #wrote(typeUrl: XdsTypeUrl, name: string): boolean {
    return this.#writes.some((write) => write.typeUrl === typeUrl && (write.kind === 'rename' ? write.from === name || write.to === name : write.name === name));
  }

  #seenOf(typeUrl: XdsTypeUrl): Set<string> {
    let seen = this.#seen.get(typeUrl);
    if (seen === undefined) this.#seen.set(typeUrl, (seen = new Set()));
    return seen;
  }
}

function sameEntry(a: NamedResource, b: NamedResource): boolean {
  return a.name === b.name && a.resource === b.resource;
}

function sameList<T>(now: readonly T[], then: readonly T[], same: (a: T, b: T) => boolean): boolean {
  return now.length === then.length && now.every((each, at) => same(each, then[at]!));
}

/** The same fields set by the very same policy items (rules are carried, so their origins are the same objects). */
export function sameFieldsSet(a: readonly FieldSet[], b: readonly FieldSet[]): boolean {
  return a === b || sameList(a, b, (x, y) => x.path === y.path && (x.origins === y.origins || sameList(x.origins, y.origins, (p, q) => p === q)));
}
