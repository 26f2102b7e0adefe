import { parseDuration } from '../../shared/duration.js';

// The one list of meshdesk's settings. Everything else (value types, validation, the API's and
// the UI's descriptions) is derived from it, so a setting is added here and nowhere else.

interface SettingBase {
  /** One sentence a user understands, shown next to the field. */
  description: string;
  /** false: a new value is saved at once but used only from the next start (e.g. a listener's port). */
  appliesLive: boolean;
}

/** Exchanged with users as a string ("1s"), held as milliseconds. Bounds are inclusive. */
export interface DurationSetting extends SettingBase {
  kind: 'duration';
  default: number;
  min: number;
  max: number;
}

export interface EnumSetting<Options extends readonly string[] = readonly string[]> extends SettingBase {
  kind: 'enum';
  options: Options;
  default: Options[number];
}

/** A TCP port; 0 asks the system for any free port. */
export interface PortSetting extends SettingBase {
  kind: 'port';
  default: number;
}

export type SettingDefinition = DurationSetting | EnumSetting | PortSetting;
export type SettingKind = SettingDefinition['kind'];

/** Durations are written in the schema as users write them; a typo fails at import, not at run time. */
function duration(definition: SettingBase & { default: string; min: string; max: string }): DurationSetting {
  return {
    ...definition,
    kind: 'duration',
    default: parseDuration(definition.default),
    min: parseDuration(definition.min),
    max: parseDuration(definition.max),
  };
}

function oneOf<const Options extends readonly string[]>(definition: Omit<EnumSetting<Options>, 'kind'>): EnumSetting<Options> {
  return { ...definition, kind: 'enum' };
}

function port(definition: Omit<PortSetting, 'kind'>): PortSetting {
  return { ...definition, kind: 'port' };
}

export const SETTINGS = {
  'store.cache.expirationTime': duration({
    description:
      'How long the cached resource manager and the MeshContext cache reuse what they read from the store; 0s turns caching off.',
    default: '1s',
    min: '0s',
    max: '1h',
    appliesLive: true,
  }),
  'xds.dataplaneConfigurationRefreshInterval': duration({
    description: "How often each connected proxy's configuration is regenerated and, when it changed, sent again.",
    default: '1s',
    min: '1ms',
    max: '1h',
    appliesLive: true,
  }),
  'xds.postCreateStrategy': oneOf({
    description:
      'What happens after a proxy registers its Dataplane through its metadata, before its first configuration: ' +
      'sleep waits one cache expiration time, invalidate drops the affected cache entries, ' +
      'none does neither (the first configuration may then miss the new Dataplane).',
    options: ['sleep', 'invalidate', 'none'],
    default: 'sleep',
    appliesLive: true,
  }),
  'xds.dataplaneDeregistrationDelay': duration({
    description:
      'How long after a proxy disconnects the Dataplane it registered through its metadata is deleted, unless the proxy reconnects meanwhile.',
    default: '10s',
    min: '0s',
    max: '1h',
    appliesLive: true,
  }),
  'xds.departedProxyRetention': duration({
    description:
      "How long a proxy that left for good (its Dataplane deregistered or deleted, or it never had one) stays listed with its timeline, first configs and history; 0s forgets it at once.",
    default: '24h',
    min: '0s',
    max: '720h',
    appliesLive: true,
  }),
  'xds.nackBackoff': duration({
    description: 'How long to wait after a proxy rejects (NACKs) a configuration before answering it again.',
    default: '5s',
    min: '0s',
    max: '1h',
    appliesLive: true,
  }),
  'xds.dataplaneTokens': oneOf({
    description:
      'Who must send its Dataplane\'s token (node metadata "meshdesk.token", which the bootstraps meshdesk gives carry) or have its stream refused. ' +
      'mtls-meshes: the proxies of meshes with mTLS on, which are sent private keys; enabled: every proxy; ' +
      'disabled: none, so any process that reaches the ADS port may connect as any Dataplane and receive its private key.',
    options: ['mtls-meshes', 'enabled', 'disabled'],
    default: 'mtls-meshes',
    appliesLive: true,
  }),
  'meshService.deletionGracePeriod': duration({
    description:
      'How long a MeshService generated from Dataplanes stays after its last Dataplane is gone (labelled kuma.io/deletion-grace-period-started-at meanwhile), ' +
      "as Kuma's meshService.deletionGracePeriod; a Dataplane coming back keeps it.",
    default: '1h',
    min: '0s',
    max: '720h',
    appliesLive: true,
  }),
  'apiServer.port': port({
    description: 'Port of the HTTP API, of Prometheus /metrics and, in headless mode, of the UI; 0 picks any free port.',
    default: 5681,
    appliesLive: false,
  }),
  'xds.port': port({
    description: 'Port of the ADS (xDS) gRPC server the proxies connect to; 0 picks any free port.',
    default: 5678,
    appliesLive: false,
  }),
} satisfies Record<string, SettingDefinition>;

export type SettingName = keyof typeof SETTINGS;
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

type ValueOf<D> = D extends EnumSetting<infer Options> ? Options[number] : D extends DurationSetting | PortSetting ? number : never;
type UserValueOf<D> = D extends DurationSetting ? string : ValueOf<D>;

/** Setting values as the core uses them: durations in milliseconds. */
export type SettingValues = { [N in SettingName]: ValueOf<(typeof SETTINGS)[N]> };
/** Setting values as users write them (API, UI, database): durations as strings such as "1s". */
export type SettingUserValues = { [N in SettingName]: UserValueOf<(typeof SETTINGS)[N]> };
export type SettingUserValue = SettingUserValues[SettingName];

export type PostCreateStrategy = SettingValues['xds.postCreateStrategy'];

export function isSettingName(name: string): name is SettingName {
  return Object.hasOwn(SETTINGS, name);
}
