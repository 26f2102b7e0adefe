import { DurationSyntaxError, formatDuration, parseDuration } from '../../shared/duration.js';
import {
  SETTINGS,
  type SettingDefinition,
  type SettingName,
  type SettingUserValues,
  type SettingValues,
} from './settings-schema.js';

// Conversions between the user form of a setting (API, UI, database row) and the form the core
// uses, with every rule of the schema checked on the way in.

export type Checked<V> = { ok: true; value: V } | { ok: false; message: string };

/** Reads a value as a user writes it: durations only as strings ("2s"), ports only as numbers. */
export function parseSettingValue<N extends SettingName>(name: N, input: unknown): Checked<SettingValues[N]> {
  const definition: SettingDefinition = SETTINGS[name];
  const result = parseUserValue(definition, input);
  return result.ok ? checkValue(definition, result.value) : result;
}

/** Checks a value already in the core's form (command-line overrides). Returns the reason it is refused, if it is. */
export function checkSettingValue(name: SettingName, value: unknown): string | undefined {
  const result = checkValue(SETTINGS[name], value);
  return result.ok ? undefined : result.message;
}

export function formatSettingValue<N extends SettingName>(name: N, value: SettingValues[N]): SettingUserValues[N] {
  const definition: SettingDefinition = SETTINGS[name];
  return (definition.kind === 'duration' ? formatDuration(value as number) : value) as SettingUserValues[N];
}

function parseUserValue(definition: SettingDefinition, input: unknown): Checked<unknown> {
  if (definition.kind !== 'duration') return { ok: true, value: input };
  if (typeof input !== 'string') {
    // Like Kuma's config: a bare number would be ambiguous (seconds? milliseconds?).
    return { ok: false, message: `must be a duration string such as "1s" or "500ms", not ${show(input)}` };
  }
  try {
    return { ok: true, value: parseDuration(input) };
  } catch (error) {
    if (error instanceof DurationSyntaxError) return { ok: false, message: error.message };
    throw error;
  }
}

function checkValue<V>(definition: SettingDefinition, value: unknown): Checked<V> {
  const message = violationOf(definition, value);
  return message === undefined ? { ok: true, value: value as V } : { ok: false, message };
}

function violationOf(definition: SettingDefinition, value: unknown): string | undefined {
  switch (definition.kind) {
    case 'duration':
      if (!Number.isSafeInteger(value) || (value as number) < 0) {
        return `must be a whole, non-negative number of milliseconds, not ${show(value)}`;
      }
      if ((value as number) < definition.min) {
        return `must be at least ${formatDuration(definition.min)}, got ${formatDuration(value as number)}`;
      }
      if ((value as number) > definition.max) {
        return `must be at most ${formatDuration(definition.max)}, got ${formatDuration(value as number)}`;
      }
      return undefined;
    case 'enum':
      return typeof value === 'string' && definition.options.includes(value)
        ? undefined
        : `must be one of ${definition.options.join(', ')}, not ${show(value)}`;
    case 'port':
      return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 65535
        ? undefined
        : `must be a port number from 0 to 65535, not ${show(value)}`;
  }
}

function show(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  return value === null || value === undefined ? String(value) : (JSON.stringify(value) ?? typeof value);
}
