// The JSON bodies of meshdesk's HTTP API, as the renderer reads them. Types only.
// Main produces these shapes with its own types; test/ui/support/api-types-match.ts makes the
// compiler check that every main type still fits the one declared here.

import type { Finding } from './analysis-types.js';
import type { PostCreateStrategy, ProxyEvent, StreamEnding, TickResult } from './proxy-events.js';
import type { PolicyType } from './policy-types.js';
import type { DataplaneSpec, ResourceType, Violation } from './resources.js';

/** Kuma's list envelope. */
export interface ListBody<T> {
  total: number;
  items: T[];
  next: string | null;
}

/** One entry of Kuma's `GET /_resources` (api/openapi/types/common ResourceTypeDescription). */
export interface ResourceTypeDescription {
  name: ResourceType;
  singularDisplayName: string;
  pluralDisplayName: string;
  /** Kuma's ws path: `/meshes/{mesh}/<path>/{name}` for mesh-scoped types. */
  path: string;
  scope: 'Global' | 'Mesh';
  readOnly: boolean;
  includeInFederation: boolean;
  shortName: string;
  /** Policies only: which targetRef sections the type has. */
  policy?: { hasToTargetRef: boolean; hasFromTargetRef: boolean; hasRulesTargetRef: boolean; isTargetRef: boolean; isFromAsRules: boolean };
}

/** `GET /_resources`. */
export interface ResourceTypeDescriptionList {
  resources: ResourceTypeDescription[];
}

/** One field at fault in an error answer (Kuma's `invalid_parameters`). */
export interface InvalidParameter {
  field: string;
  reason: string;
}

/**
 * Every error the API answers, in Kuma's `/std-errors` envelope (pkg/core/rest/errors/types): `detail`
 * and `invalid_parameters` today, and the older `details` and `causes` (the same facts) that kumactl
 * falls back to. Field lists are absent when empty.
 */
export interface ApiErrorBody {
  type: '/std-errors';
  status: number;
  title: string;
  detail: string;
  invalid_parameters?: InvalidParameter[];
  details: string;
  causes?: Violation[];
}

/** `GET /meshes/{mesh}/_not-applied`, `GET /meshes/{mesh}/dataplanes/{name}/_not-applied` */
export interface NotAppliedBody {
  /** Field paths stored as given but not acted on, e.g. `mtls`, `networking.inbound[0].serviceProbe`. */
  notApplied: string[];
}

/** `GET /`: what kumactl reads to identify a control plane (Kuma's IndexResponse), plus meshdesk's own version. */
export interface ApiIndex {
  hostname: string;
  tagline: string;
  product: string;
  /** The Kuma version whose API meshdesk serves. */
  version: string;
  basedOnKuma: string;
  instanceId: string;
  clusterId: string;
  gui: string;
  meshdesk: { version: string };
}

// ---- Proxies -----------------------------------------------------------------------------------

/** What one proxy was sent, accepted and rejected for one type URL, on its current (or last) stream. */
export interface TypeStatus {
  typeUrl: string;
  /** `cds`, `eds`, `lds`, `rds`; the type URL itself for any other type. */
  type: string;
  lastSent?: { version: string; nonce: string; resources: number; at: number };
  lastAcked?: { version: string; nonce: string; at: number };
  /** The proxy refused `rejectedVersion` and keeps running `acceptedVersion` (the NACK's version_info). */
  lastNack?: { rejectedVersion: string; acceptedVersion: string; nonce: string; error: string; at: number };
  /** A response that was due but too large to send. */
  lastDropped?: { version: string; error: string; at: number };
  counts: { responses: number; acks: number; nacks: number; dropped: number };
}

/**
 * Where a proxy stands, as one word:
 * - online: `connecting` (its stream is open, nothing decided yet), `waiting` (meshdesk's own
 *   post-create wait runs, until `waitEndsAt`), `configured` (it was sent configuration),
 *   `no-dataplane` (no Dataplane has its node id: it gets nothing until one is created);
 * - offline: `offline` (its stream closed; a proxy-registered Dataplane is deleted at
 *   `deregistrationDueAt` unless it comes back), `refused` (meshdesk ended its stream with an
 *   error: `refusal` says what the proxy was told).
 * A departed proxy (see `departure`) is offline or refused.
 */
export type ProxyConnectionState = 'connecting' | 'waiting' | 'configured' | 'no-dataplane' | 'offline' | 'refused';

/** One proxy as the API and the UI show it (Kuma's DataplaneInsight, reduced). Times are epoch ms. */
export interface ProxyStatus {
  /** Node id, `mesh.name` (clipped when a proxy sent a very long one). */
  proxyId: string;
  online: boolean;
  state: ProxyConnectionState;
  /** `waiting`: when meshdesk's post-create wait ends. */
  waitEndsAt?: number;
  /** `refused`: the gRPC status meshdesk ended the stream with, as the proxy got it. */
  refusal?: Extract<StreamEnding, { by: 'control-plane' }> & { at: number };
  /**
   * What the proxy has is not its latest configuration: since the first tick that could not send it
   * whole (a resource that did not encode, or a generation that failed), and why. Cleared by the
   * next tick that sends everything.
   */
  stale?: { since: number; reason: string };
  /** `offline`: when its proxy-registered Dataplane will be deleted unless the proxy reconnects first. */
  deregistrationDueAt?: number;
  /**
   * The proxy left for good (its Dataplane was deregistered or deleted, or it never had one): its
   * status, timeline, first configs and history are kept until `expiresAt` (`xds.departedProxyRetention`).
   */
  departure?: { at: number; expiresAt: number };
  /**
   * The status was read back from the database at a start of meshdesk (`restartedAt`): the proxy
   * has not connected since, and what it shows is how it stood before that restart.
   */
  beforeRestart?: { restartedAt: number };
  /** When the proxy came online (its stream's first request) or went offline. */
  since: number;
  /** Streams this proxy opened since it was first seen (or last forgotten). */
  connections: number;
  /** The current stream, or the last one of an offline proxy. */
  stream: { id: number; peer: string; openedAt: number; closedAt?: number };
  /** The xDS variant of that stream: State of the World, or incremental (delta). */
  protocol: 'sotw' | 'delta';
  /** Every type the proxy asked for on that stream, in push order (CDS, EDS, LDS, RDS, then others). */
  types: TypeStatus[];
}

/** `GET /meshes/{mesh}/dataplanes+status` items (meshdesk's; Kuma's own shape is KumaDataplaneOverview). */
export interface DataplaneOverview {
  type: 'DataplaneOverview';
  mesh: string;
  name: string;
  creationTime: string;
  modificationTime: string;
  labels: Record<string, string>;
  dataplane: DataplaneSpec;
  /** null for a proxy never seen. */
  dataplaneInsight: ProxyStatus | null;
}

/** One subscription of a live stream: the resource names a proxy asked for. */
export interface SubscriptionInfo {
  typeUrl: string;
  wildcard: boolean;
  names: string[];
}

/** `GET …/dataplanes/{name}/_status` */
export interface ProxyStatusDetail extends ProxyStatus {
  subscriptions: SubscriptionInfo[];
}

/** `GET …/dataplanes/{name}/_timeline` */
export interface ProxyTimelineBody {
  proxyId: string;
  events: ProxyEvent[];
  /** Set once the proxy departed: its story is kept until `departure.expiresAt`. */
  departure?: ProxyStatus['departure'];
}

/**
 * Time to first config (SPEC §5), the product's headline figure, taken apart: what one
 * connection of a proxy spent between opening its stream and having every type it was sent ACKed.
 *
 * All `…Ms` times below are milliseconds since the stream opened. `phases` cut that span into
 * consecutive pieces, each ending at a milestone (so they never overlap, leave no gap, and add up
 * to the total): the UI draws them as one stacked bar. Registration and the post-create wait are
 * left out when they did not happen (no lifecycle, an API-created Dataplane); any other milestone
 * that has not come yet ends the phases there, and `total.complete` is false.
 */
export interface FirstConfigBreakdown {
  /** Node id, `mesh.name` (added by `GET …/dataplanes/{name}/_first-config`). */
  proxyId: string;
  streamId: number;
  /** When the stream opened, epoch ms. */
  openedAt: number;
  /** `store.cache.expirationTime` in force when it opened. */
  cacheExpirationMs: number;
  /** How the stream ended, once it did (a refusal says what the proxy was told). */
  ending?: StreamEnding;
  /** Whether the stream is still open (no `stream-closed` recorded for it, and no later stream). */
  open: boolean;
  registration?: { origin: 'metadata' | 'api'; created: boolean; atMs: number };
  /** Only when the proxy brought its Dataplane in its metadata: API-created Dataplanes never wait. */
  postCreateWait?: { strategy: PostCreateStrategy; waitedMs: number; cause: string; startMs: number; endMs: number };
  /** meshdesk's post-create wait has started and not ended yet: it is due to end at `endMs`. */
  postCreateWaitRunning?: { strategy: PostCreateStrategy; startMs: number; endMs: number };
  /** The sync tracker's first tick, whatever it found. */
  firstTick?: TickSummary;
  /**
   * The first tick that found the Dataplane and generated configuration. It is the first tick
   * unless that one missed the Dataplane (strategy `none`), in which case `ticksBefore` says how
   * many ticks came first.
   */
  firstConfigTick?: TickSummary & { ticksBefore: number };
  /** Per type URL that got a response, in order of the first response. */
  types: FirstConfigType[];
  phases: FirstConfigPhase[];
  /** Stream open → every type that got a response ACKed. */
  total: { complete: boolean; endMs?: number; durationMs?: number };
  /**
   * The tick that issued the proxy's mesh mTLS identity certificate for this connection, measured
   * around the issuance itself (key pair and signature): what the `certificate-issuance` phase ends with.
   */
  certificateIssuance?: { startMs: number; endMs: number; durationMs: number };
  /** The connection is from an earlier run of meshdesk, read back at its start (`restartedAt`). */
  beforeRestart?: { restartedAt: number };
}

/**
 * `GET …/dataplanes/{name}/_first-config`: the latest connection's breakdown, and the connections
 * before it, newest first (a bounded number of them).
 */
export interface FirstConfigBody extends FirstConfigBreakdown {
  earlier: Omit<FirstConfigBreakdown, 'proxyId'>[];
}

export interface TickSummary {
  result: TickResult;
  detail?: string;
  startMs: number;
  endMs: number;
  durationMs: number;
}

export interface FirstConfigType {
  typeUrl: string;
  /** `cds`, `eds`, `lds`, `rds`. */
  type: string;
  firstResponseMs: number;
  firstAckMs?: number;
  /** NACKs before the first ACK. */
  nacks: number;
}

export type FirstConfigPhaseName =
  | 'registration'
  | 'post-create-wait'
  | 'certificate-issuance'
  | 'first-generation'
  | 'dataplane-not-found'
  | 'first-responses'
  | 'first-acks';

export interface FirstConfigPhase {
  name: FirstConfigPhaseName;
  /** What the phase ends with, in words, for a tooltip. */
  label: string;
  startMs: number;
  endMs: number;
  durationMs: number;
}

/** Resources by type URL, each as proto3 JSON under its name. */
export type SnapshotResourcesJson = { readonly [typeUrl: string]: readonly { name: string; resource: unknown }[] };

/** `GET …/dataplanes/{name}/_history` items, newest first: one snapshot without its resources. */
export interface SnapshotSummary {
  /** Unique across proxies: the key of `…/_history/{id}`. */
  id: number;
  /** 1 for the proxy's first snapshot, then 2, 3…: what the UI shows ("#1"). */
  number: number;
  proxyId: string;
  createdAt: number;
  versions: Record<string, string>;
  changedTypes: string[];
  /** The policies changed in the proxy's mesh since its previous snapshot (empty for a first snapshot of a connection). */
  policyChanges: PolicyVersionChange[];
}

/**
 * An input of the proxy's configuration created (no `from`), updated (`from` → `to`) or deleted (no
 * `to`), by store version: a policy, the Mesh, or a Dataplane (another proxy's endpoints).
 */
export interface PolicyVersionChange {
  type: PolicyType | 'Mesh' | 'Dataplane';
  name: string;
  /** A Dataplane its proxy registered: that proxy's id (`mesh.name`). */
  registeredBy?: string;
  /** What the change did, where it is worth saying: `mTLS on (ca-1)`, `mTLS off`. */
  detail?: string;
  from?: number;
  to?: number;
}

export interface SnapshotRecord extends SnapshotSummary {
  resources: SnapshotResourcesJson;
}

/**
 * `POST …/dataplanes/{name}/_preview-policy`: the proxy's resources one policy change would add,
 * remove or change (`before` has the changed and removed ones as they are, `after` the changed and
 * added ones as they would be), in the form the wire carries them. Nothing is written.
 */
export interface PolicyPreviewBody {
  proxyId: string;
  kind: 'envoy' | 'grpc';
  before: SnapshotResourcesJson;
  after: SnapshotResourcesJson;
  /**
   * The policy previewed is a shadow one (`kuma.io/effect: shadow`): the diff is what it would do if
   * it were live; applying it as it is changes nothing.
   */
  shadow: boolean;
}

/**
 * `POST /meshes/{mesh}/_policy-warnings`: what applying a policy would be warned about (the PUT's
 * `warnings`), or, for a policy the PUT would refuse, that refusal (Apply shows its fields).
 */
export interface PolicyWarningsBody {
  warnings: string[];
  /** The mesh analysis's findings about the policy (also among `warnings`, as text): the editor marks their fields. */
  findings: Finding[];
  refusal?: { status: number; title: string; detail: string };
}

/** A resource's identity in Kuma's inspection answers (api_common.Meta). */
export interface ResourceMetaBody {
  type: string;
  mesh: string;
  name: string;
  labels: Record<string, string>;
}

/** One `to` or `from` rule of `_rules`: the subset it applies to, the merged conf, the policies merged in order. */
export interface SubsetRuleBody {
  conf: unknown;
  matchers: { key: string; value: string; not: boolean }[];
  origin: ResourceMetaBody[];
}

/** One inbound rule of `_rules`: the match (none: all traffic), the merged conf, each policy item behind it. */
export interface InboundRuleBody {
  conf: unknown[];
  match?: unknown;
  origin: { resourceMeta: ResourceMetaBody; ruleIndex: number }[];
}

export interface RulesInbound {
  name?: string;
  port: number;
  tags: Record<string, string>;
}

/** `GET …/dataplanes/{name}/_rules` (Kuma's InspectRulesResponse). */
export interface ProxyRulesBody {
  httpMatches: { hash: string; match: unknown }[];
  resource: ResourceMetaBody;
  rules: {
    type: string;
    toRules: SubsetRuleBody[];
    toResourceRules: unknown[];
    fromRules: { inbound: RulesInbound; rules: SubsetRuleBody[] }[];
    inboundRules: { inbound: RulesInbound; rules: InboundRuleBody[] }[];
    warnings: string[];
  }[];
}

/** `GET …/dataplanes/{name}/xds`: Envoy's admin config dump. */
export interface ConfigDump {
  configs: Record<string, unknown>[];
}

/** `GET /xds/chain` */
export interface XdsChainInfo {
  callbacks: string[];
  settings: Record<string, unknown>;
  ads: { host: string; port: number };
}

// ---- Settings ----------------------------------------------------------------------------------

export type SettingKind = 'duration' | 'enum' | 'port';
/** Where the value in force comes from; flags win over environment variables, which win over saved values. */
export type SettingSource = 'command line' | 'environment' | 'saved' | 'default';
/** As users write them: durations as strings ("1s"), ports as numbers, enums as their option. */
export type SettingUserValue = string | number;

/** `GET /settings/schema` items. */
export interface SettingDescription {
  name: string;
  description: string;
  kind: SettingKind;
  default: SettingUserValue;
  value: SettingUserValue;
  source: SettingSource;
  /** The flag or environment variable that set the value in force (`--api-port`, `MESHDESK_API_PORT`). */
  sourceName?: string;
  /** The value saved in the data directory, if any: what a start without the flag or variable uses. */
  savedValue?: SettingUserValue;
  /** false: "restart needed" after a change. */
  appliesLive: boolean;
  /** The saved value the next start will use, when it differs from the one in force and no flag or variable overrides it. */
  pendingValue?: SettingUserValue;
  options?: readonly string[];
  min?: SettingUserValue;
  max?: SettingUserValue;
}

/** `GET /settings` and the answer of `PUT /settings`. */
export type SettingValuesBody = Record<string, SettingUserValue>;

// ---- Cache -------------------------------------------------------------------------------------

/** `GET /cache` entries: one cached read of the resource manager. */
export interface CacheEntry {
  key: string;
  operation: 'get' | 'list';
  type: ResourceType;
  mesh: string;
  name?: string;
  ageMs: number;
  timeLeftMs: number;
}

export interface CacheEntriesBody {
  entries: CacheEntry[];
}

// ---- Kuma's DataplaneOverview (kumactl inspect dataplanes) ---------------------------------------

/** One type's counters in a subscription; protobuf JSON writes uint64 as strings and leaves zeros out. */
export interface KumaDiscoveryServiceStats {
  responsesSent?: string;
  responsesAcknowledged?: string;
  responsesRejected?: string;
}

/** One ADS stream of a proxy (Kuma's DiscoverySubscription). */
export interface KumaDiscoverySubscription {
  id: string;
  controlPlaneInstanceId: string;
  connectTime?: string;
  disconnectTime?: string;
  status: {
    lastUpdateTime?: string;
    total: KumaDiscoveryServiceStats;
    cds: KumaDiscoveryServiceStats;
    eds: KumaDiscoveryServiceStats;
    lds: KumaDiscoveryServiceStats;
    rds: KumaDiscoveryServiceStats;
  };
  generation?: number;
}

/** `GET /meshes/{mesh}/dataplanes/_overview` and `…/dataplanes+insights` items, as Kuma shapes them. */
export interface KumaDataplaneOverview {
  type: 'DataplaneOverview';
  mesh: string;
  name: string;
  creationTime: string;
  modificationTime: string;
  labels?: Record<string, string>;
  kri: string;
  dataplane: DataplaneSpec;
  /** Absent for a proxy never seen. */
  dataplaneInsight?: { subscriptions: KumaDiscoverySubscription[] };
}

// ---- Export and import -------------------------------------------------------------------------

/** kumactl's words for what `apply` did to a resource, plus what an import leaves alone. */
export type ImportAction = 'Created' | 'Updated' | 'Unchanged';

export interface ImportedResource {
  type: ResourceType;
  /** '' for a Mesh. */
  mesh: string;
  name: string;
  action: ImportAction;
}

/** `POST /import[?overwrite=true][&dryRun=true]`: what was done, or with dryRun what would be done. */
export interface ImportReport {
  dryRun: boolean;
  /** Every resource of the text, in the order written: Meshes first. */
  resources: ImportedResource[];
}
