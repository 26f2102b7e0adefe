import { createHash } from 'node:crypto';
import { encodeResource } from '../protocol/encode.js';
import type { EncodedAny, ProtoJson } from '../protocol/proto-json.js';

/** One resource of a snapshot: the Any it is sent as, and optionally the JSON it came from (for config dumps). */
export interface SnapshotResource {
  any: EncodedAny;
  json?: ProtoJson;
}

/**
 * Every resource of one type for one node. `version` is computed by whoever builds the snapshot
 * (a content hash); the server only sends it as `version_info` and compares strings.
 */
export interface TypeSnapshot {
  version: string;
  /** By resource name: a Map cannot hold a name twice, so neither can a response. */
  resources: ReadonlyMap<string, SnapshotResource>;
}

/** The configuration of one node, by type URL. A type missing from it is never answered. */
export type Snapshot = ReadonlyMap<string, TypeSnapshot>;

/** Hex characters of a resource's content hash: plenty to tell two versions of one resource apart. */
const RESOURCE_VERSION_LENGTH = 16;
const resourceVersions = new WeakMap<EncodedAny, string>();

/**
 * The version of one resource: a hash of its encoded bytes, so equal content has one version on
 * every stream, reconnect and restart (a delta client sends it back in `initial_resource_versions`).
 * Computed once per encoded Any; snapshots share Anys across proxies and generations.
 */
export function resourceVersion({ any }: SnapshotResource): string {
  let version = resourceVersions.get(any);
  if (version === undefined) {
    version = createHash('sha256').update(any.value).digest('hex').slice(0, RESOURCE_VERSION_LENGTH);
    resourceVersions.set(any, version);
  }
  return version;
}

/** The JSON form of a snapshot, for tests and hand-written configs: resources named by `name` (or `cluster_name`). */
export type SnapshotJson = { readonly [typeUrl: string]: { version: string; resources: readonly ProtoJson[] } };

/** Encodes every resource (so a bad one fails here, with its name and field path) and keys it by name. */
export function snapshotFromJson(json: SnapshotJson): Snapshot {
  const snapshot = new Map<string, TypeSnapshot>();
  for (const [typeUrl, { version, resources }] of Object.entries(json)) {
    const byName = new Map<string, SnapshotResource>();
    for (const resource of resources) {
      const name = resource.name ?? resource.cluster_name;
      if (typeof name !== 'string') throw new Error(`a ${typeUrl} resource of snapshot version ${version} has no name`);
      if (byName.has(name)) throw new Error(`snapshot version ${version} holds two ${typeUrl} resources named "${name}"`);
      byName.set(name, { any: encodeResource(typeUrl, resource), json: resource });
    }
    snapshot.set(typeUrl, { version, resources: byName });
  }
  return snapshot;
}
