import type {
  ApiErrorBody,
  ApiIndex,
  CacheEntriesBody,
  ConfigDump,
  DataplaneOverview,
  FirstConfigBody,
  ImportReport,
  ListBody,
  PolicyPreviewBody,
  PolicyWarningsBody,
  ProxyRulesBody,
  ProxyStatus,
  ProxyStatusDetail,
  ProxyTimelineBody,
  ResourceMetaBody,
  ResourceTypeDescription,
  ResourceTypeDescriptionList,
  SettingDescription,
  SettingValuesBody,
  SnapshotRecord,
  SnapshotSummary,
  XdsChainInfo,
} from '../../../../shared/api-types.js';
import type { ApiMethod } from '../../../../shared/bridge.js';
import type { CacheStats, XdsStats } from '../../../../shared/stats-types.js';
import type { KumaDpInstructions } from '../../../../shared/kuma-dp-types.js';
import type { StorageStatus } from '../../../../shared/storage-types.js';
import type { DemoStatus } from '../../../../shared/demo-types.js';
import type { MeshMtlsView, ProxyIdentityView } from '../../../../shared/mtls-types.js';
import type { MeshAnalysis } from '../../../../shared/analysis-types.js';
import type { ServicesView } from '../../../../shared/services-types.js';
import type { PermissionMatrixView } from '../../../../shared/permission-types.js';
import type { CoreEvent } from '../../../../shared/events.js';
import type { ProxyPolicyEffects } from '../../../../shared/policy-types.js';
import type { ResourceKey, Violation } from '../../../../shared/resources.js';

/** The most cells `_permissions` answers at once, and the most the UI loads. */
const MATRIX_PAGE_SIZE = 1000;
const MAX_MATRIX_CELLS = 10_000;
import type { ConnectionStatus, Transport } from './transport.js';

/** An API answer other than 2xx, with Kuma's error body (`causes` name the fields at fault). */
export class ApiRequestError extends Error {
  override readonly name = 'ApiRequestError';

  constructor(
    readonly method: ApiMethod,
    readonly path: string,
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(`${method} ${path} answered ${status}: ${body.detail || body.title}`);
  }

  /** The fields at fault: Kuma's `invalid_parameters`, else the older `causes`. */
  get causes(): Violation[] {
    return (
      this.body.invalid_parameters?.map(({ field, reason }) => ({ field, message: reason })) ?? this.body.causes ?? []
    );
  }
}

/** A Kuma resource as the API answers it: flat, `type`, `mesh`, `name`, then the spec's fields. */
export type KumaObject = { type: string; mesh?: string; name: string } & Record<string, unknown>;

/** The ADS variant an Envoy bootstrap asks for (`?xdsProtocol=`): State of the World (default) or delta (incremental). */
export type XdsProtocol = 'sotw' | 'delta';

export type BootstrapKind = { proxyType: 'envoy'; format?: 'yaml' | 'json'; xdsProtocol?: XdsProtocol } | { proxyType: 'grpc' };

type EventListener = (event: CoreEvent) => void;
type StatusListener = (status: ConnectionStatus) => void;

const segment = encodeURIComponent;
const proxyPath = (mesh: string, name: string) => `/meshes/${segment(mesh)}/dataplanes/${segment(name)}`;

/**
 * The renderer's one way to the core: typed methods over the HTTP API's paths, plus the live
 * events. One transport subscription is shared by every listener and opened only while at least
 * one listens, so views can subscribe and unsubscribe freely.
 */
export class MeshdeskClient {
  readonly #transport: Transport;
  readonly #eventListeners = new Set<EventListener>();
  readonly #statusListeners = new Set<StatusListener>();
  /** Kuma's type catalogue, read once: the types and their paths do not change while meshdesk runs. */
  #resourceTypes: Promise<ResourceTypeDescription[]> | undefined;
  #unsubscribe: (() => void) | undefined;
  #status: ConnectionStatus = 'connecting';

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  get transport(): Transport['name'] {
    return this.#transport.name;
  }

  get status(): ConnectionStatus {
    return this.#status;
  }

  // ---- live events ----

  /** Core events as they happen; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.#eventListeners.add(listener);
    this.#connect();
    return () => {
      this.#eventListeners.delete(listener);
      this.#disconnectIfUnused();
    };
  }

  /** Connection changes (`live` after `offline` means events may have been missed: refetch). */
  onStatus(listener: StatusListener): () => void {
    this.#statusListeners.add(listener);
    this.#connect();
    return () => {
      this.#statusListeners.delete(listener);
      this.#disconnectIfUnused();
    };
  }

  /**
   * Calls `listener` whenever live events start flowing: now if they already do, then after each
   * reconnection. That is when a view (re)loads: whatever happened before is in its fetch, and
   * whatever happens after arrives as events, so nothing falls in between.
   */
  onLive(listener: () => void): () => void {
    const stop = this.onStatus((status) => {
      if (status === 'live') listener();
    });
    if (this.#status === 'live') listener();
    return stop;
  }

  #connect(): void {
    this.#unsubscribe ??= this.#transport.subscribe(
      (event) => {
        for (const listener of this.#eventListeners) listener(event);
      },
      (status) => {
        this.#status = status;
        for (const listener of this.#statusListeners) listener(status);
      },
    );
  }

  #disconnectIfUnused(): void {
    if (this.#eventListeners.size > 0 || this.#statusListeners.size > 0) return;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#status = 'connecting';
  }

  // ---- requests ----

  async request(method: ApiMethod, path: string, body?: unknown): Promise<string> {
    const text = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
    const response = await this.#transport.request({ method, path, ...(text !== undefined && { body: text }) });
    if (response.status < 200 || response.status >= 300) {
      throw new ApiRequestError(method, path, response.status, parseErrorBody(response.body, response.status));
    }
    return response.body;
  }

  async json<T>(method: ApiMethod, path: string, body?: unknown): Promise<T> {
    return JSON.parse(await this.request(method, path, body)) as T;
  }

  index(): Promise<ApiIndex> {
    return this.json('GET', '/');
  }

  // resources (Kuma's paths)
  meshes(): Promise<ListBody<KumaObject>> {
    return this.json('GET', '/meshes');
  }

  dataplanes(mesh?: string): Promise<ListBody<KumaObject>> {
    return this.json('GET', mesh === undefined ? '/dataplanes' : `/meshes/${segment(mesh)}/dataplanes`);
  }

  /** Every type the API stores, by name, with its path (Kuma's `GET /_resources`). */
  resourceTypes(): Promise<ResourceTypeDescription[]> {
    this.#resourceTypes ??= this.json<ResourceTypeDescriptionList>('GET', '/_resources').then(
      ({ resources }) => resources,
      (error: unknown) => {
        this.#resourceTypes = undefined; // a failed read is tried again next time
        throw error;
      },
    );
    return this.#resourceTypes;
  }

  /** Every policy of every mesh, each type from its own list path. */
  async policies(): Promise<KumaObject[]> {
    const policyTypes = (await this.resourceTypes()).filter((type) => type.policy !== undefined);
    const lists = await Promise.all(policyTypes.map((type) => this.#everyPage(`/${type.path}`)));
    return lists.flat();
  }

  /** A list's items over all its pages, following Kuma's `next` (an absolute URL: its path and query are ours). */
  async #everyPage(path: string): Promise<KumaObject[]> {
    const items: KumaObject[] = [];
    for (let next: string | null = path; next !== null; ) {
      const page: ListBody<KumaObject> = await this.json('GET', next);
      items.push(...page.items);
      next = page.next === null ? null : `${new URL(page.next).pathname}${new URL(page.next).search}`;
    }
    return items;
  }

  /** The Dataplanes a policy selects (Kuma's `_resources/dataplanes`). */
  async policyDataplanes(key: ResourceKey): Promise<ListBody<ResourceMetaBody>> {
    return this.json('GET', `${await this.#resourcePath(key)}/_resources/dataplanes`);
  }

  async resource(key: ResourceKey): Promise<KumaObject> {
    return this.json('GET', await this.#resourcePath(key));
  }

  /**
   * Creates or updates a resource from YAML or JSON text (or an object) and reads it back, with the
   * PUT's `warnings` (Kuma's PUT answers `{}` or `{warnings}`, not the stored resource). `createOnly` never replaces an
   * existing one (409); `takeOver` is the explicit consent to update a Dataplane its proxy
   * registered (without it the API answers 409).
   */
  async applyResource(key: ResourceKey, body: string | object, options: { createOnly?: boolean; takeOver?: boolean } = {}): Promise<{ resource: KumaObject; warnings: string[] }> {
    const query = options.createOnly ? '?createOnly=true' : options.takeOver ? '?takeOver=true' : '';
    const answer = JSON.parse(await this.request('PUT', `${await this.#resourcePath(key)}${query}`, body)) as { warnings?: string[] };
    return { resource: await this.resource(key), warnings: answer.warnings ?? [] };
  }

  /** What applying the policy `text` in `mesh` would be warned about (the PUT's `warnings`), or its refusal, without writing it. */
  policyWarnings(mesh: string, text: string): Promise<PolicyWarningsBody> {
    return this.json('POST', `/meshes/${segment(mesh)}/_policy-warnings`, text);
  }

  async deleteResource(key: ResourceKey): Promise<void> {
    await this.request('DELETE', await this.#resourcePath(key));
  }

  /** Kuma's item path: `/meshes/{name}` for a Mesh, `/meshes/{mesh}/<type's path>/{name}` for the others. */
  async #resourcePath({ type, mesh, name }: ResourceKey): Promise<string> {
    if (type === 'Mesh') return `/meshes/${segment(name)}`;
    if (type === 'Dataplane') return proxyPath(mesh, name);
    const description = (await this.resourceTypes()).find((each) => each.name === type);
    if (!description) throw new Error(`the API does not serve ${type}`);
    return `/meshes/${segment(mesh)}/${description.path}/${segment(name)}`;
  }

  // proxies
  dataplanesWithInsights(mesh: string): Promise<ListBody<DataplaneOverview>> {
    return this.json('GET', `/meshes/${segment(mesh)}/dataplanes+status`);
  }

  proxies(): Promise<ListBody<ProxyStatus>> {
    return this.json('GET', '/proxies');
  }

  proxyStatus(mesh: string, name: string): Promise<ProxyStatusDetail> {
    return this.json('GET', `${proxyPath(mesh, name)}/_status`);
  }

  /** The mesh's mTLS (backend, mode, CA fingerprint and validity); `mtls: null` when off. */
  meshMtls(mesh: string): Promise<MeshMtlsView> {
    return this.json('GET', `/meshes/${segment(mesh)}/_mtls`);
  }

  /** What will not work in the mesh (docs/analysis.md): findings worst first. */
  analysis(mesh: string): Promise<MeshAnalysis> {
    return this.json('GET', `/meshes/${segment(mesh)}/_analysis`);
  }

  /** Every service of the mesh with its endpoints and callers' edges (docs/api.md, `_services`). */
  services(mesh: string): Promise<ServicesView> {
    return this.json('GET', `/meshes/${segment(mesh)}/_services`);
  }

  /**
   * Which service may call which in the mesh (MeshTrafficPermission), and the RBAC filters that
   * enforce it: every page of cells up to MAX_MATRIX_CELLS (100 × 100 services), merged; past it,
   * a warning says how much of the matrix is shown.
   */
  async permissions(mesh: string): Promise<PermissionMatrixView> {
    const page = (offset: number) => this.json<PermissionMatrixView>('GET', `/meshes/${segment(mesh)}/_permissions?size=${MATRIX_PAGE_SIZE}&offset=${offset}`);
    const view = await page(0);
    while (view.next !== null && view.cells.length < MAX_MATRIX_CELLS) {
      const more = await page(view.cells.length);
      view.cells.push(...more.cells);
      Object.assign(view.enforcement, more.enforcement);
      view.warnings = [...new Set([...view.warnings, ...more.warnings])];
      view.next = more.next;
    }
    if (view.next !== null) view.warnings.push(`The matrix has ${view.total} cells; the first ${view.cells.length} are shown (callers in name order).`);
    return view;
  }

  /** The proxy's identity certificate; null when it has none (offline, or mTLS off). */
  async proxyIdentity(mesh: string, name: string): Promise<ProxyIdentityView | null> {
    return (await this.json<{ identity: ProxyIdentityView | null }>('GET', `${proxyPath(mesh, name)}/_identity`)).identity;
  }

  configDump(mesh: string, name: string): Promise<ConfigDump> {
    return this.json('GET', `${proxyPath(mesh, name)}/xds`);
  }

  /** The rules each policy type computes for the proxy, as Kuma's `_rules` answers them. */
  /** `shadow`: with the mesh's shadow policies applied as if live (what they would do). */
  rules(mesh: string, name: string, { shadow = false } = {}): Promise<ProxyRulesBody> {
    return this.json('GET', `${proxyPath(mesh, name)}/_rules${shadow ? '?shadow=true' : ''}`);
  }

  /** Which config field each policy item set on the proxy as last generated. */
  policyEffects(mesh: string, name: string): Promise<ProxyPolicyEffects> {
    return this.json('GET', `${proxyPath(mesh, name)}/_policy-effects`);
  }

  /**
   * What applying the policy text (or, with `remove`, deleting the policy it names) would change
   * in the proxy's configuration; nothing is written. A 400 names the fields at fault as `PUT` does.
   */
  previewPolicy(mesh: string, name: string, text: string, { remove = false } = {}): Promise<PolicyPreviewBody> {
    return this.json('POST', `${proxyPath(mesh, name)}/_preview-policy${remove ? '?delete=true' : ''}`, text);
  }

  timeline(mesh: string, name: string): Promise<ProxyTimelineBody> {
    return this.json('GET', `${proxyPath(mesh, name)}/_timeline`);
  }

  /** The latest connection's breakdown, with the earlier ones kept. */
  firstConfig(mesh: string, name: string): Promise<FirstConfigBody> {
    return this.json('GET', `${proxyPath(mesh, name)}/_first-config`);
  }

  history(mesh: string, name: string): Promise<ListBody<SnapshotSummary>> {
    return this.json('GET', `${proxyPath(mesh, name)}/_history`);
  }

  snapshot(mesh: string, name: string, id: number): Promise<SnapshotRecord> {
    return this.json('GET', `${proxyPath(mesh, name)}/_history/${id}`);
  }

  /** The whole store as `kumactl apply -f` YAML (proxy-registered Dataplanes left out). */
  exportYaml(): Promise<string> {
    return this.request('GET', '/export');
  }

  /** Imports an export or `kumactl get -o yaml` output, all or nothing; `dryRun` only says what would happen. */
  importResources(text: string, options: { overwrite: boolean; dryRun: boolean }): Promise<ImportReport> {
    const query = new URLSearchParams({ overwrite: String(options.overwrite), dryRun: String(options.dryRun) });
    return this.json('POST', `/import?${query}`, text);
  }

  /** The bootstrap file's text: Envoy YAML (default) or JSON, or gRPC's JSON bootstrap. */
  bootstrap(mesh: string, name: string, kind: BootstrapKind = { proxyType: 'envoy' }): Promise<string> {
    const query = new URLSearchParams(kind as Record<string, string>).toString();
    return this.request('GET', `${proxyPath(mesh, name)}/bootstrap?${query}`);
  }

  /** The bootstrap for a Dataplane that is not stored (YAML/JSON text or object): it registers when the proxy connects. */
  bootstrapPreview(dataplane: string | object, kind: BootstrapKind = { proxyType: 'envoy' }): Promise<string> {
    const query = new URLSearchParams(kind as Record<string, string>).toString();
    return this.request('POST', `/bootstrap?${query}`, dataplane);
  }

  xdsChain(): Promise<XdsChainInfo> {
    return this.json('GET', '/xds/chain');
  }

  /** The kuma-dp command line and meshdesk's CA file for it. */
  kumaDp(): Promise<KumaDpInstructions> {
    return this.json('GET', '/kuma-dp');
  }

  // settings
  settings(): Promise<SettingValuesBody> {
    return this.json('GET', '/settings');
  }

  settingsSchema(): Promise<SettingDescription[]> {
    return this.json('GET', '/settings/schema');
  }

  /** All or nothing: a 400 ApiRequestError names each bad setting in `causes`. */
  updateSettings(patch: SettingValuesBody): Promise<SettingValuesBody> {
    return this.json('PUT', '/settings', patch);
  }

  // cache and metrics
  cacheEntries(): Promise<CacheEntriesBody> {
    return this.json('GET', '/cache');
  }

  /** Cache counters since start, hit ratios, entries and the TTL in force (the Cache view polls it). */
  cacheStats(): Promise<CacheStats> {
    return this.json('GET', '/stats/cache');
  }

  /** Time to first config per proxy and per strategy, generation and delivery distributions, recent ticks. */
  xdsStats(): Promise<XdsStats> {
    return this.json('GET', '/stats/xds');
  }

  /** Config history write status and the stored rows left out as broken (the storage indicator polls it). */
  storage(): Promise<StorageStatus> {
    return this.json('GET', '/storage');
  }

  /** The demo mesh's state, and what its gRPC client's calls got. */
  demo(): Promise<DemoStatus> {
    return this.json('GET', '/demo');
  }

  /** Starts the demo mesh; resolves once its resources are written and its proxies are connecting. */
  startDemo(): Promise<DemoStatus> {
    return this.json('POST', '/demo');
  }

  /** Stops the demo mesh and removes what it wrote (what the user changed since stays, named in `kept`). */
  stopDemo(): Promise<DemoStatus> {
    return this.json('DELETE', '/demo');
  }

  /** Prometheus text exposition (`store_cache`, `mesh_cache`, `xds_generation`, `xds_delivery`, …). */
  metrics(): Promise<string> {
    return this.request('GET', '/metrics');
  }
}

/** Kuma's error envelope from whatever a non-2xx answer holds (a proxy in between may answer plain text). */
function parseErrorBody(text: string, status: number): ApiErrorBody {
  let body: Partial<ApiErrorBody> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Partial<ApiErrorBody>;
  } catch {
    body = { detail: text.slice(0, 500) };
  }
  const detail = body.detail ?? body.details ?? '';
  return { ...body, type: '/std-errors', status, title: body.title ?? `HTTP ${status}`, detail, details: detail };
}
