import type { SettingDescription as SettingDescriptionBody, SettingSource } from '../../shared/api-types.js';
import type { Violation } from '../../shared/resources.js';
import type { EventBus } from '../events/event-bus.js';
import { ValidationError } from '../resources/validation-error.js';
import type { SettingsTable } from '../store/settings-table.js';
import { checkSettingValue, formatSettingValue, parseSettingValue, type Checked } from './setting-values.js';
import {
  SETTINGS,
  SETTING_NAMES,
  isSettingName,
  type SettingKind,
  type SettingName,
  type SettingUserValue,
  type SettingUserValues,
  type SettingValues,
} from './settings-schema.js';

/** A value for this run only, and the flag or environment variable it came from. */
export interface SettingOverride<V = unknown> {
  value: V;
  source: Extract<SettingSource, 'command line' | 'environment'>;
  /** `--api-port`, `MESHDESK_API_PORT`: what the UI names as the value's origin. */
  sourceName: string;
}

export type SettingOverrides = { [N in SettingName]?: SettingOverride<SettingValues[N]> };

export interface SettingsOptions {
  table: SettingsTable;
  events: EventBus;
  /** Values for this run only (flags, environment variables): they win over saved values and are never saved. */
  overrides?: SettingOverrides;
}

/**
 * One setting as the API and the UI show it (`GET /settings/schema`, typed for both in
 * src/shared), narrowed to this schema: a kind or value type the shared one lacks fails to compile.
 */
export interface SettingDescription extends SettingDescriptionBody {
  name: SettingName;
  kind: SettingKind;
  default: SettingUserValue;
  value: SettingUserValue;
}

/** What an update changed, by setting name, in user form. Also the payload of the `settings.changed` event. */
export type ChangedSettings = Partial<SettingUserValues>;

type Listener<N extends SettingName> = (value: SettingValues[N]) => void;

/**
 * meshdesk's settings: defaults from the schema, saved values from the `settings` table,
 * command-line overrides on top. Settings that apply live notify `onChange` listeners and take
 * effect at once; the others are saved for the next start and keep their value in force until then.
 */
export class Settings {
  readonly #table: SettingsTable;
  readonly #events: EventBus;
  /** Values saved in the database; absent means "the default". */
  readonly #stored: Partial<SettingValues> = {};
  readonly #current: SettingValues;
  readonly #source = {} as Record<SettingName, SettingSource>;
  readonly #overrides: SettingOverrides;
  readonly #listeners = new Map<SettingName, Set<Listener<never>>>();

  constructor({ table, events, overrides = {} }: SettingsOptions) {
    this.#table = table;
    this.#events = events;
    checkOverrides(overrides);
    this.#overrides = overrides;
    this.#loadStored();
    const current: Partial<Record<SettingName, unknown>> = {};
    for (const name of SETTING_NAMES) {
      const override = overrides[name];
      if (override !== undefined) {
        current[name] = override.value;
        this.#source[name] = override.source;
      } else {
        current[name] = this.#configured(name);
        this.#source[name] = this.#stored[name] === undefined ? 'default' : 'saved';
      }
    }
    this.#current = current as SettingValues;
    const clash = portClash((name) => this.#current[name], (name) => overrides[name]?.sourceName ?? this.#source[name]);
    if (clash) throw new ValidationError('Invalid settings', [clash]);
  }

  /** The value in force. */
  get<N extends SettingName>(name: N): SettingValues[N] {
    return this.#current[name];
  }

  all(): Readonly<SettingValues> {
    return Object.freeze({ ...this.#current });
  }

  /** Every value in force, as users write them ("1s", "sleep", 5681). */
  userValues(): SettingUserValues {
    const values: Partial<Record<SettingName, SettingUserValue>> = {};
    for (const name of SETTING_NAMES) values[name] = formatSettingValue(name, this.#current[name]);
    return values as SettingUserValues;
  }

  describe(): SettingDescription[] {
    return SETTING_NAMES.map((name) => {
      const definition = SETTINGS[name];
      const pending = this.#configured(name);
      const override = this.#overrides[name];
      const saved = this.#stored[name];
      return {
        name,
        description: definition.description,
        kind: definition.kind,
        default: formatSettingValue(name, definition.default),
        value: formatSettingValue(name, this.#current[name]),
        source: this.#source[name],
        ...(override && { sourceName: override.sourceName }),
        ...(saved !== undefined && { savedValue: formatSettingValue(name, saved) }),
        appliesLive: definition.appliesLive,
        // A flag or variable in force is not "pending": the next start with it uses it again.
        ...(!override && !definition.appliesLive && pending !== this.#current[name] && { pendingValue: formatSettingValue(name, pending) }),
        ...(definition.kind === 'enum' && { options: definition.options }),
        ...(definition.kind === 'duration' && {
          min: formatSettingValue(name, definition.min),
          max: formatSettingValue(name, definition.max),
        }),
      };
    });
  }

  /**
   * Applies a patch of values in user form, all or nothing: every entry is checked before anything is
   * written (a ValidationError names each bad one), then all are saved in one transaction.
   * `onChange` listeners hear about live values that changed; the `settings.changed` event and the
   * returned object also list values saved for the next start. Unchanged values appear in neither.
   */
  update(patch: Record<string, unknown>): ChangedSettings {
    const accepted = parsePatch(patch);
    this.#checkPorts(accepted);
    const toSave = accepted.filter(([name, value]) => value !== this.#configured(name));
    const toApply = accepted.filter(([name, value]) => SETTINGS[name].appliesLive && value !== this.#current[name]);

    this.#table.save(
      toSave.map(([name, value]) => ({ name, value: JSON.stringify(formatSettingValue(name, value)) })),
      new Date().toISOString(),
    );

    const changed: Partial<Record<SettingName, SettingUserValue>> = {};
    const current = this.#current as Record<SettingName, unknown>;
    for (const [name, value] of toSave) {
      (this.#stored as Record<SettingName, unknown>)[name] = value;
      changed[name] = formatSettingValue(name, value);
    }
    for (const [name, value] of toApply) {
      current[name] = value;
      this.#source[name] = 'saved';
      changed[name] = formatSettingValue(name, value);
    }
    for (const [name, value] of toApply) this.#notify(name, value);
    if (Object.keys(changed).length > 0) this.#events.publish({ topic: 'settings.changed', changed });
    return changed as ChangedSettings;
  }

  /** Called with the new value whenever a live setting changes. Returns the unsubscribe function. */
  onChange<N extends SettingName>(name: N, listener: Listener<N>): () => void {
    let listeners = this.#listeners.get(name);
    if (!listeners) this.#listeners.set(name, (listeners = new Set()));
    const registered = listener as Listener<never>;
    listeners.add(registered);
    return () => listeners.delete(registered);
  }

  /**
   * Two listeners cannot share a port: refused here, naming both settings, rather than at the next
   * start as a misleading "port in use". Checked for the values a start without flags would use and
   * for those with this run's flags and variables on top (they are usually given again).
   */
  #checkPorts(accepted: Accepted[]): void {
    const patched = new Map<SettingName, unknown>(accepted);
    const next = (name: SettingName) => patched.get(name) ?? this.#configured(name);
    const origin = (name: SettingName) => (patched.has(name) ? 'given here' : this.#stored[name] === undefined ? 'default' : 'saved');
    const override = (name: SettingName) => this.#overrides[name];
    const clash =
      portClash(next, origin) ??
      portClash(
        (name) => override(name)?.value ?? next(name),
        (name) => override(name)?.sourceName ?? origin(name),
      );
    if (clash) throw new ValidationError('Invalid settings', [clash]);
  }

  /** The value the next start uses, command-line overrides aside. */
  #configured<N extends SettingName>(name: N): SettingValues[N] {
    return this.#stored[name] ?? (SETTINGS[name].default as SettingValues[N]);
  }

  #loadStored(): void {
    for (const { name, value } of this.#table.rows()) {
      // A bad row must not stop meshdesk from starting: say why and fall back to the default.
      if (!isSettingName(name)) {
        console.warn(`ignoring stored setting "${name}": this version of meshdesk does not know it`);
        continue;
      }
      const result = parseStoredValue(name, value);
      if (result.ok) (this.#stored as Record<SettingName, unknown>)[name] = result.value;
      else console.warn(`ignoring stored setting "${name}" = ${value}: ${result.message}; using its default`);
    }
  }

  #notify(name: SettingName, value: unknown): void {
    for (const listener of this.#listeners.get(name) ?? []) {
      try {
        (listener as (value: unknown) => void)(value);
      } catch (error) {
        console.error(`listener of setting ${name} failed:`, error);
      }
    }
  }
}

type Accepted = [SettingName, SettingValues[SettingName]];

/** The listeners' ports: each must differ from the others (0, "any free port", never clashes). */
const PORT_SETTINGS = ['apiServer.port', 'xds.port'] as const satisfies readonly SettingName[];

function portClash(value: (name: SettingName) => unknown, origin: (name: SettingName) => string): Violation | undefined {
  const [api, ads] = PORT_SETTINGS;
  const port = value(ads);
  if (port === 0 || port !== value(api)) return undefined;
  return {
    field: ads,
    message: `${ads} (${origin(ads)}) and ${api} (${origin(api)}) are both ${String(port)}: the ADS server and the HTTP API need a port each`,
  };
}

function parsePatch(patch: Record<string, unknown>): Accepted[] {
  const accepted: Accepted[] = [];
  const violations: Violation[] = [];
  for (const [name, input] of Object.entries(patch)) {
    if (!isSettingName(name)) {
      violations.push({ field: name, message: `unknown setting; the settings are ${SETTING_NAMES.join(', ')}` });
      continue;
    }
    const result = parseSettingValue(name, input);
    if (result.ok) accepted.push([name, result.value]);
    else violations.push({ field: name, message: result.message });
  }
  if (violations.length > 0) throw new ValidationError('Invalid settings', violations);
  return accepted;
}

function checkOverrides(overrides: Partial<Record<string, SettingOverride>>): void {
  const violations: Violation[] = [];
  for (const [name, override] of Object.entries(overrides)) {
    if (override === undefined) continue;
    const message = isSettingName(name) ? checkSettingValue(name, override.value) : 'unknown setting';
    if (message !== undefined) violations.push({ field: override.sourceName ? `${name} (${override.sourceName})` : name, message });
  }
  if (violations.length > 0) throw new ValidationError('Invalid command-line settings', violations);
}

/** Rows hold the user form as JSON ("\"1s\"", "5681"), readable to anyone opening the database. */
function parseStoredValue<N extends SettingName>(name: N, text: string): Checked<SettingValues[N]> {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    return { ok: false, message: 'not valid JSON' };
  }
  return parseSettingValue(name, input);
}
