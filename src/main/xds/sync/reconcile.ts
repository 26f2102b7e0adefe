import { createHash } from 'node:crypto';
import type { PolicyVersionChange } from '../../../shared/api-types.js';
import type { HistoryRecorder } from '../../store/snapshot-history.js';
import type { GeneratedResources, NamedResource } from '../generate/resources.js';
import { SECRET_TYPE_URL, XDS_TYPE_URLS, shortTypeName, type XdsTypeUrl } from '../protocol/type-urls.js';
import { redactSecret } from '../status/redact-secrets.js';
import type { SnapshotCache } from '../server/snapshot-cache.js';
import { resourceVersion, type Snapshot, type SnapshotResource, type TypeSnapshot } from '../server/snapshot.js';
import { now } from '../status/proxy-timeline.js';
import { EncodedResourceCache } from './encoded-resource-cache.js';
import { ResourceEncodingError } from '../protocol/encode.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import type { WithheldResource } from '../../../shared/proxy-events.js';

/** Hex characters of a type's content hash used as its version: plenty to tell a proxy's configs apart. */
const VERSION_LENGTH = 16;

export interface ReconcileResult {
  /** Version per type URL of the snapshot now in place for the proxy. */
  versions: Record<XdsTypeUrl, string>;
  /** Types whose version differs from the previous snapshot's, in push order; empty when nothing was set. */
  changedTypes: XdsTypeUrl[];
  /** Resources that could not be encoded: the proxy keeps their last sent form, or goes without them. */
  withheld: WithheldResource[];
}

export interface SnapshotReconcilerOptions {
  snapshots: SnapshotCache;
  history: HistoryRecorder;
  /** Shared by every proxy this reconciler serves; a fresh one unless a test or benchmark brings its own. */
  encoded?: EncodedResourceCache;
}

/**
 * Turns a proxy's generated resources into its snapshot (Kuma's reconciler): encode every resource
 * (the guard against anything Envoy would reject), version each type by a hash of its content, and
 * publish only when a version differs from the snapshot in place. Equal content always gets the
 * same version, across ticks, reconnects and restarts, so a proxy is never sent what it already has.
 */
export class SnapshotReconciler {
  readonly #snapshots: SnapshotCache;
  readonly #history: HistoryRecorder;
  readonly #encoded: EncodedResourceCache;

  constructor(options: SnapshotReconcilerOptions) {
    this.#snapshots = options.snapshots;
    this.#history = options.history;
    this.#encoded = options.encoded ?? new EncodedResourceCache();
  }

  /**
   * A resource that does not encode is withheld (its last sent form kept, if any) and listed in
   * the result; the rest is published. Throws, naming the proxy, only for a generator bug (two
   * resources of one name): the snapshot in place then stays. A published snapshot is queued for the history in the same turn (written
   * with the others of that turn, see SnapshotHistory.recordSoon), so the history holds exactly
   * what was published, with `policyChanges` (the policy changes behind it) when it is published.
   */
  reconcile(proxyId: string, generated: GeneratedResources, policyChanges: readonly PolicyVersionChange[] = []): ReconcileResult {
    const current = this.#snapshots.getSnapshot(proxyId);
    const withheld: WithheldResource[] = [];
    const snapshot = encodeSnapshot(proxyId, generated, this.#encoded, current, withheld);
    // The history holds what was published: with a resource withheld, that is not what was generated.
    const published = withheld.length === 0 ? generated : publishedResources(snapshot);
    const versions = Object.fromEntries(XDS_TYPE_URLS.map((typeUrl) => [typeUrl, snapshot.get(typeUrl)!.version])) as Record<
      XdsTypeUrl,
      string
    >;
    const changedTypes = XDS_TYPE_URLS.filter((typeUrl) => current?.get(typeUrl)?.version !== versions[typeUrl]);
    if (changedTypes.length > 0) {
      // A type with no resources now and none before did not change for the user, even in a first
      // snapshot: the history says "RDS changed" only when there are routes on one side.
      const changedForHistory = changedTypes.filter((typeUrl) => published[typeUrl].length > 0 || (current?.get(typeUrl)?.resources.size ?? 0) > 0);
      this.#history.recordSoon({ proxyId, createdAt: now(), versions, changedTypes: changedForHistory, policyChanges, resources: withoutPrivateKeys(published) });
      this.#snapshots.setSnapshot(proxyId, snapshot);
    }
    return { versions, changedTypes, withheld };
  }

  /** Forgets the proxy's snapshot, once nobody serves it any more. */
  clear(proxyId: string): void {
    this.#snapshots.clearSnapshot(proxyId);
  }

  /** Writes the history queued so far, before the database closes. */
  flush(): void {
    this.#history.flush();
  }
}

/** The history keeps what was sent except proxies' private keys: it is shown in the UI and kept in the database. */
function withoutPrivateKeys(generated: GeneratedResources): GeneratedResources {
  const secrets = generated[SECRET_TYPE_URL];
  if (secrets.length === 0) return generated;
  return { ...generated, [SECRET_TYPE_URL]: secrets.map(({ name, resource }) => ({ name, resource: redactSecret(resource) })) };
}

/** The resources of a snapshot as generated resources, for the history. */
function publishedResources(snapshot: Snapshot): GeneratedResources {
  return Object.fromEntries(
    XDS_TYPE_URLS.map((typeUrl) => [typeUrl, [...snapshot.get(typeUrl)!.resources].map(([name, { json }]) => ({ name, resource: json! }))]),
  ) as unknown as GeneratedResources;
}

function encodeSnapshot(
  proxyId: string,
  generated: GeneratedResources,
  encoded: EncodedResourceCache,
  current: Snapshot | undefined,
  withheld: WithheldResource[],
): Snapshot {
  try {
    return new Map(
      XDS_TYPE_URLS.map((typeUrl) => {
        const inPlace = current?.get(typeUrl);
        return [typeUrl, inPlace !== undefined && sameResources(inPlace, generated[typeUrl]) ? inPlace : encodeType(typeUrl, generated[typeUrl], encoded, inPlace, withheld)];
      }),
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot publish the configuration of proxy "${proxyId}": ${reason}`, { cause: error });
  }
}

/**
 * Whether the type's resources are the very objects of the snapshot in place, under the same names:
 * after a change elsewhere most types of most proxies are (see `canonical`), and then their encoded
 * form and version are the ones in place, without a sort and a hash over every resource.
 */
function sameResources(inPlace: TypeSnapshot, generated: readonly NamedResource[]): boolean {
  if (matchedLists.get(inPlace) === generated) return true;
  if (inPlace.resources.size !== generated.length) return false;
  // Each name once, as encodeType would check: then every resource in place is matched.
  const names = new Set<string>();
  for (const { name, resource } of generated) {
    if (names.has(name) || inPlace.resources.get(name)?.json !== resource) return false;
    names.add(name);
  }
  matchedLists.set(inPlace, generated);
  return true;
}

/**
 * The generated list a type snapshot was last found to hold: a proxy whose generation kept a type's
 * list from its last tick (apply-plugins.ts) is matched without a walk. Lists are never changed.
 */
const matchedLists = new WeakMap<TypeSnapshot, readonly NamedResource[]>();

/**
 * Every type is in the snapshot, even empty: an empty CDS or LDS answer is how a proxy learns that
 * all of them are gone. Versioned by a hash of each resource's name and version (a hash of its
 * bytes, computed once per Any and shared by every proxy), in name order: a few bytes per resource.
 */
function encodeType(
  typeUrl: XdsTypeUrl,
  generated: readonly NamedResource[],
  encoded: EncodedResourceCache,
  inPlace: TypeSnapshot | undefined,
  withheld: WithheldResource[],
): TypeSnapshot {
  const byName = [...generated].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const resources = new Map<string, SnapshotResource>();
  let versions = '';
  const withheldBefore = withheld.length;
  for (const { name, resource } of byName) {
    if (resources.has(name)) throw new Error(`two ${shortTypeName(typeUrl)} resources are named "${name}"`);
    const encodedResource = encodeOrKeep(typeUrl, name, resource, encoded, inPlace, withheld);
    if (encodedResource === undefined) continue;
    // Length-prefixed names, fixed-length versions: two lists can never read as one text.
    versions += `${name.length}:${name}${resourceVersion(encodedResource)}`;
    resources.set(name, encodedResource);
  }
  const typeSnapshot = { version: createHash('sha256').update(versions).digest('hex').slice(0, VERSION_LENGTH), resources };
  // Only a list sent as generated may be matched again: one with a resource withheld is encoded again next time.
  if (withheld.length === withheldBefore) matchedLists.set(typeSnapshot, generated);
  return typeSnapshot;
}

/**
 * A resource that does not encode must not cost the proxy every other update (issue 27): it keeps
 * the form of it last sent, if any, or goes without it, and the failure is reported on the proxy.
 */
function encodeOrKeep(
  typeUrl: XdsTypeUrl,
  name: string,
  resource: ProtoJson,
  encoded: EncodedResourceCache,
  inPlace: TypeSnapshot | undefined,
  withheld: WithheldResource[],
): SnapshotResource | undefined {
  try {
    return { any: encoded.encode(typeUrl, resource), json: resource };
  } catch (error) {
    if (!(error instanceof ResourceEncodingError)) throw error;
    const kept = inPlace?.resources.get(name);
    withheld.push({ typeUrl, name, reason: error.message, kept: kept !== undefined });
    return kept;
  }
}
