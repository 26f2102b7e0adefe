import type { PolicyOrigin, PolicyType } from '../../../shared/policy-types.js';
import { canonical, carriedMemo, type CarriedMemo, type MemoMap } from '../../xds/context/carried-memo.js';
import { policiesOf, type Endpoint, type MeshContext } from '../../xds/context/mesh-context.js';
import type { PolicyResource } from './policy.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { XDS_TYPE_URLS, type XdsTypeUrl } from '../../xds/protocol/type-urls.js';
import { resourcesByType, type GeneratedResources, type NamedResource } from '../../xds/generate/resources.js';
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

const NO_ENDPOINTS: readonly Endpoint[] = Object.freeze([]);

/**
 * A proxy's generated resources as the policy plugins change them, in Kuma's plugin order, with
 * a record of which policy set what. The generators' resources may be shared by many proxies
 * (memoized per MeshContext) and frozen, so a plugin never edits one in place: it `put`s a new one.
 * What a plugin reads of the context by name (a service's endpoints, a policy) it reads here too,
 * so that its run's recording holds it (plugin-replay.ts).
 */
export class EnvoyResources {
  readonly #generated: GeneratedResources;
  /** By type, made from the generated list when a type is first read or written: a type no plugin touches stays that list. */
  readonly #byType = new Map<XdsTypeUrl, Map<string, ProtoJson>>();
  readonly #written = new Set<XdsTypeUrl>();
  readonly #attributions: Attribution[] = [];
  /** The resources a plugin put, by type: the others are still the generators'. */
  readonly #put = new Map<XdsTypeUrl, Set<string>>(XDS_TYPE_URLS.map((typeUrl) => [typeUrl, new Set()]));
  /** Where the running plugin's reads and writes go, while one is recorded (plugin-replay.ts). */
  #recording: ResourceRecording | undefined;

  /** The context the resources were generated from: private, as a plugin reads the context only through its view (context-view.ts). */
  readonly #context: MeshContext | undefined;

  constructor(generated: GeneratedResources, context?: MeshContext) {
    this.#context = context;
    this.#generated = generated;
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
    const resource = this.#of(typeUrl).get(name);
    this.#recording?.read(typeUrl, name, resource);
    return resource;
  }

  /** The names of the type's resources, for a reader that reads no resource itself. */
  names(typeUrl: XdsTypeUrl): string[] {
    const names = [...this.#of(typeUrl).keys()];
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
    const byName = this.#of(typeUrl);
    this.#recording?.wrote({ kind: 'put', typeUrl, name, resource, set, added: !byName.has(name) });
    byName.set(name, resource);
    this.#written.add(typeUrl);
    this.#put.get(typeUrl)!.add(name);
    attributionsOf(typeUrl, name, set, this.#attributions);
  }

  remove(typeUrl: XdsTypeUrl, name: string): void {
    this.#recording?.wrote({ kind: 'remove', typeUrl, name });
    this.#of(typeUrl).delete(name);
    this.#written.add(typeUrl);
  }

  /** Serves the resource `from` as `resource` under the name `to`, with the fields policies set in it. */
  rename(typeUrl: XdsTypeUrl, from: string, to: string, resource: ProtoJson): void {
    this.#recording?.wrote({ kind: 'rename', typeUrl, from, to, resource });
    this.#of(typeUrl).delete(from);
    this.#of(typeUrl).set(to, resource);
    this.#written.add(typeUrl);
    this.#put.get(typeUrl)!.add(to);
    this.#attributions.forEach((attribution, at) => {
      if (attribution.typeUrl === typeUrl && attribution.resource === from) this.#attributions[at] = { ...attribution, resource: to };
    });
  }

  /** The resources plugins put (added, replaced or renamed) and did not remove since. */
  listPut(typeUrl: XdsTypeUrl): NamedResource[] {
    const put = this.#put.get(typeUrl)!;
    const byName = put.size === 0 ? undefined : this.#of(typeUrl);
    const entries = [...put].flatMap((name) => {
      const resource = byName!.get(name);
      return resource === undefined ? [] : [{ name, resource }];
    });
    this.#recording?.readWhole({ kind: 'listPut', typeUrl, entries });
    return entries;
  }

  toResources(): GeneratedResources {
    // A type no plugin wrote is the generated list itself: the reconciler finds it in place by identity.
    const list = (typeUrl: XdsTypeUrl) => (this.#written.has(typeUrl) ? this.#entries(typeUrl) : this.#generated[typeUrl]);
    return resourcesByType(list);
  }

  #entries(typeUrl: XdsTypeUrl): NamedResource[] {
    return [...this.#of(typeUrl)].map(([name, resource]) => ({ name, resource }));
  }

  #of(typeUrl: XdsTypeUrl): Map<string, ProtoJson> {
    let byName = this.#byType.get(typeUrl);
    if (byName === undefined) this.#byType.set(typeUrl, (byName = new Map(this.#generated[typeUrl].map(({ name, resource }) => [name, resource]))));
    return byName;
  }

  /**
   * The endpoints of a service in the context the resources were generated from: a recorded read,
   * for a plugin that makes a cluster's endpoints itself (a route's split cluster) and so depends on
   * those of a few services, not on every endpoint of the mesh.
   */
  endpointsOf(service: string): readonly Endpoint[] {
    if (this.#context === undefined) throw new Error(`the endpoints of "${service}" were read from resources generated from no mesh context`);
    const endpoints = canonical(this.#context, 'service-endpoints', this.#context.endpointsByService.get(service) ?? NO_ENDPOINTS);
    this.#recording?.readContext({ kind: 'endpoints', service, endpoints });
    return endpoints;
  }

  /**
   * The stored policy of a type and name, as the context has it (undefined when there is none): a
   * recorded read, for a plugin that names the policy behind a rule (its KRI, the item that set a
   * field), so that an edit of another policy of the type does not run it again.
   */
  policyNamed(type: PolicyType, name: string): PolicyResource | undefined {
    if (this.#context === undefined) throw new Error(`the ${type} "${name}" was read from resources generated from no mesh context`);
    const found = policiesOf(this.#context, type).find((policy) => policy.meta.name === name);
    const policy = found && canonical(this.#context, 'policy', found);
    this.#recording?.readContext({ kind: 'policy', type, name, policy });
    return policy;
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

/** What a put of `set` into resource `name` attributes, added to `into`: each field a policy item's value went into. */
export function attributionsOf(typeUrl: XdsTypeUrl, name: string, set: readonly FieldSet[], into: Attribution[]): void {
  for (const { path, origins } of set) if (origins.length > 0) into.push({ typeUrl, resource: name, path, origins });
}
