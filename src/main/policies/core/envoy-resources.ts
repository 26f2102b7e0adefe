import type { PolicyOrigin, PolicyType } from '../../../shared/policy-types.js';
import { carriedMemo, type CarriedMemo, type MemoMap } from '../../xds/context/carried-memo.js';
import type { MeshContext } from '../../xds/context/mesh-context.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { XDS_TYPE_URLS, type XdsTypeUrl } from '../../xds/protocol/type-urls.js';
import type { GeneratedResources, NamedResource } from '../../xds/generate/resources.js';
import type { ResourceRecording } from './resource-recording.js';

/** A field a policy set in a resource, as a path into its proto3 JSON, with the policy items behind its value. */
export interface FieldSet {
  path: string;
  origins: readonly PolicyOrigin[];
}

/**
 * A config field a policy set: the resource, the field as a path into its proto3 JSON
 * (`filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes[1].route.timeout`),
 * and the items whose merged conf gave the value (the last one wins, as in Kuma's merge).
 */
export interface Attribution {
  typeUrl: XdsTypeUrl;
  resource: string;
  path: string;
  origins: readonly PolicyOrigin[];
}

/**
 * A proxy's generated resources as the policy plugins change them, in Kuma's plugin order, with
 * a record of which policy set what. The generators' resources may be shared by many proxies
 * (memoized per MeshContext) and frozen, so a plugin never edits one in place: it `put`s a new one.
 */
export class EnvoyResources {
  readonly #byType: Map<XdsTypeUrl, Map<string, ProtoJson>>;
  readonly #attributions: Attribution[] = [];
  /** The resources a plugin put, by type: the others are still the generators'. */
  readonly #put = new Map<XdsTypeUrl, Set<string>>(XDS_TYPE_URLS.map((typeUrl) => [typeUrl, new Set()]));
  /** Where the running plugin's reads and writes go, while one is recorded (plugin-replay.ts). */
  #recording: ResourceRecording | undefined;

  /** The context the resources were generated from: private, as a plugin reads the context only through its view (context-view.ts). */
  readonly #context: MeshContext | undefined;

  constructor(generated: GeneratedResources, context?: MeshContext) {
    this.#context = context;
    this.#byType = new Map(
      XDS_TYPE_URLS.map((typeUrl) => [typeUrl, new Map(generated[typeUrl].map(({ name, resource }) => [name, resource]))]),
    );
  }

  /** The memo `name` of the context the resources were generated from, carried to its mesh's next one (carried-memo.ts); none without a context. */
  carriedMemo<K, V>(name: string, entries: () => MemoMap<K, V>): CarriedMemo<K, V> | undefined {
    return this.#context && carriedMemo(this.#context, name, entries);
  }

  /** Records every read and write into `recording` until called again (undefined: stops recording). */
  recordInto(recording: ResourceRecording | undefined): void {
    this.#recording = recording;
  }

  get(typeUrl: XdsTypeUrl, name: string): ProtoJson | undefined {
    const resource = this.#byType.get(typeUrl)!.get(name);
    this.#recording?.read(typeUrl, name, resource);
    return resource;
  }

  /** The names of the type's resources, for a reader that reads no resource itself. */
  names(typeUrl: XdsTypeUrl): string[] {
    const names = [...this.#byType.get(typeUrl)!.keys()];
    this.#recording?.readWhole({ kind: 'names', typeUrl, names });
    return names;
  }

  list(typeUrl: XdsTypeUrl): NamedResource[] {
    const entries = this.#entries(typeUrl);
    this.#recording?.readWhole({ kind: 'list', typeUrl, entries });
    return entries;
  }

  /** Adds or replaces a resource; `set` names the fields a policy gave it, with the items behind them. */
  put(typeUrl: XdsTypeUrl, name: string, resource: ProtoJson, set: readonly FieldSet[] = []): void {
    this.#recording?.wrote({ kind: 'put', typeUrl, name, resource, set });
    this.#byType.get(typeUrl)!.set(name, resource);
    this.#put.get(typeUrl)!.add(name);
    for (const { path, origins } of set) {
      if (origins.length > 0) this.#attributions.push({ typeUrl, resource: name, path, origins });
    }
  }

  remove(typeUrl: XdsTypeUrl, name: string): void {
    this.#recording?.wrote({ kind: 'remove', typeUrl, name });
    this.#byType.get(typeUrl)!.delete(name);
  }

  /** Serves the resource `from` as `resource` under the name `to`, with the fields policies set in it. */
  rename(typeUrl: XdsTypeUrl, from: string, to: string, resource: ProtoJson): void {
    this.#recording?.wrote({ kind: 'rename', typeUrl, from, to, resource });
    this.#byType.get(typeUrl)!.delete(from);
    this.#byType.get(typeUrl)!.set(to, resource);
    this.#put.get(typeUrl)!.add(to);
    this.#attributions.forEach((attribution, at) => {
      if (attribution.typeUrl === typeUrl && attribution.resource === from) this.#attributions[at] = { ...attribution, resource: to };
    });
  }

  /** The resources plugins put (added, replaced or renamed) and did not remove since. */
  listPut(typeUrl: XdsTypeUrl): NamedResource[] {
    const byName = this.#byType.get(typeUrl)!;
    const entries = [...this.#put.get(typeUrl)!].flatMap((name) => {
      const resource = byName.get(name);
      return resource === undefined ? [] : [{ name, resource }];
    });
    this.#recording?.readWhole({ kind: 'listPut', typeUrl, entries });
    return entries;
  }

  toResources(): GeneratedResources {
    const list = (typeUrl: XdsTypeUrl) => this.#entries(typeUrl);
    return Object.fromEntries(XDS_TYPE_URLS.map((typeUrl) => [typeUrl, list(typeUrl)])) as unknown as GeneratedResources;
  }

  #entries(typeUrl: XdsTypeUrl): NamedResource[] {
    return [...this.#byType.get(typeUrl)!].map(([name, resource]) => ({ name, resource }));
  }

  /** Every field a policy set, in the order the plugins set them; a later entry for the same field wins. */
  attributions(): readonly Attribution[] {
    // Read whole while a plugin runs, they would be an input no recording checks: its run is not replayed.
    this.#recording?.readUncheckable();
    return this.#attributions;
  }

  /** Whether a policy of `type` set a field of the resource: a plugin that defers to an earlier plugin reads this. */
  setByPolicyOf(typeUrl: XdsTypeUrl, name: string, type: PolicyType): boolean {
    const found = this.#attributions.some((attribution) => attribution.typeUrl === typeUrl && attribution.resource === name && attribution.origins.some((origin) => origin.type === type));
    this.#recording?.readSetBy({ typeUrl, name, type, found });
    return found;
  }
}
