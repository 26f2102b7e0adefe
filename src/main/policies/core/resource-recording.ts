import type { PolicyType } from '../../../shared/policy-types.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import type { XdsTypeUrl } from '../../xds/protocol/type-urls.js';
import type { NamedResource } from '../../xds/generate/resources.js';
import type { EnvoyResources, FieldSet } from './envoy-resources.js';

type Read =
  | { kind: 'get'; typeUrl: XdsTypeUrl; name: string; resource: ProtoJson | undefined }
  | { kind: 'names'; typeUrl: XdsTypeUrl; names: readonly string[] }
  | { kind: 'list' | 'listPut'; typeUrl: XdsTypeUrl; entries: readonly NamedResource[] }
  | { kind: 'setBy'; typeUrl: XdsTypeUrl; name: string; type: PolicyType; found: boolean };

type Write =
  | { kind: 'put'; typeUrl: XdsTypeUrl; name: string; resource: ProtoJson; set: readonly FieldSet[] }
  | { kind: 'remove'; typeUrl: XdsTypeUrl; name: string }
  | { kind: 'rename'; typeUrl: XdsTypeUrl; from: string; to: string; resource: ProtoJson };

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
      }
    });
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
