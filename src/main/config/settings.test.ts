import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { tempDatabase, type TempDatabase } from '../../../test/support/temp-database.js';
import { EventBus, type EventOf } from '../events/event-bus.js';
import { ValidationError } from '../resources/validation-error.js';
import type { Db } from '../store/database.js';
import { SETTINGS, SETTING_NAMES } from './settings-schema.js';
import { Settings, type SettingsOptions } from './settings.js';
import { settingsTable } from '../store/settings-table.js';

let database: TempDatabase;
let db: Db;

beforeEach(() => {
  database = tempDatabase();
  db = database.open();
});

afterEach(() => {
  vi.restoreAllMocks();
});

function open(options: Partial<SettingsOptions> = {}) {
  const events = new EventBus();
  const published: EventOf<'settings.changed'>[] = [];
  events.subscribe((event) => {
    if (event.topic === 'settings.changed') published.push(event);
  });
  return { settings: new Settings({ table: settingsTable(db), events, ...options }), published };
}

function reopen(options: Partial<SettingsOptions> = {}) {
  db.close();
  db = database.open();
  return open(options);
}

function storedRows(): { name: string; value: string }[] {
  return db.prepare('SELECT name, value FROM settings ORDER BY name').all() as { name: string; value: string }[];
}

function violationsOf(action: () => unknown) {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).violations;
  }
  throw new Error('expected a ValidationError');
}

describe('Settings', () => {
  it('starts with the documented defaults, durations in milliseconds', () => {
    const { settings } = open();
    expect(settings.all()).toEqual({
      'store.cache.expirationTime': 1_000,
      'xds.dataplaneConfigurationRefreshInterval': 1_000,
      'xds.postCreateStrategy': 'sleep',
      'xds.dataplaneDeregistrationDelay': 10_000,
      'xds.departedProxyRetention': 86_400_000,
      'xds.nackBackoff': 5_000,
      'xds.dataplaneTokens': 'mtls-meshes',
      'meshService.deletionGracePeriod': 3_600_000,
      'apiServer.port': 5681,
      'xds.port': 5678,
    });
    expect(settings.userValues()).toMatchObject({ 'store.cache.expirationTime': '1s', 'xds.dataplaneDeregistrationDelay': '10s' });
    expect(settings.describe().every((setting) => setting.source === 'default')).toBe(true);
    expect(storedRows()).toEqual([]);
  });

  it('types each value from the schema', () => {
    const { settings } = open();
    expectTypeOf(settings.get('store.cache.expirationTime')).toEqualTypeOf<number>();
    expectTypeOf(settings.get('xds.postCreateStrategy')).toEqualTypeOf<'sleep' | 'invalidate' | 'none'>();
    expectTypeOf(settings.userValues()['xds.nackBackoff']).toEqualTypeOf<string>();
    expectTypeOf(settings.onChange<'xds.port'>).parameter(1).toEqualTypeOf<(value: number) => void>();
  });

  it('describes every setting for the UI in user form', () => {
    const { settings } = open();
    const described = settings.describe();
    expect(described.map((setting) => setting.name)).toEqual(SETTING_NAMES);
    expect(described.find((setting) => setting.name === 'store.cache.expirationTime')).toEqual({
      name: 'store.cache.expirationTime',
      description: SETTINGS['store.cache.expirationTime'].description,
      kind: 'duration',
      default: '1s',
      value: '1s',
      source: 'default',
      appliesLive: true,
      min: '0s',
      max: '1h',
    });
    expect(described.find((setting) => setting.name === 'xds.postCreateStrategy')).toMatchObject({
      kind: 'enum',
      options: ['sleep', 'invalidate', 'none'],
    });
    expect(described.find((setting) => setting.name === 'xds.port')).toMatchObject({ kind: 'port', appliesLive: false });
  });

  it('keeps saved values across a restart on the same database file', () => {
    open().settings.update({ 'store.cache.expirationTime': '2s', 'xds.postCreateStrategy': 'invalidate', 'apiServer.port': 15681 });

    const { settings } = reopen();
    expect(settings.get('store.cache.expirationTime')).toBe(2_000);
    expect(settings.get('xds.postCreateStrategy')).toBe('invalidate');
    expect(settings.get('apiServer.port')).toBe(15681);
    expect(settings.describe().find((setting) => setting.name === 'apiServer.port')?.source).toBe('saved');
    expect(storedRows()).toEqual([
      { name: 'apiServer.port', value: '15681' },
      { name: 'store.cache.expirationTime', value: '"2s"' },
      { name: 'xds.postCreateStrategy', value: '"invalidate"' },
    ]);
  });

  it('changes only the settings named in a partial update', () => {
    const { settings } = open();
    const changed = settings.update({ 'xds.nackBackoff': '1m30s' });
    expect(changed).toEqual({ 'xds.nackBackoff': '1m30s' });
    expect(settings.get('xds.nackBackoff')).toBe(90_000);
    expect(settings.all()).toMatchObject({ 'store.cache.expirationTime': 1_000, 'xds.postCreateStrategy': 'sleep' });
    expect(storedRows()).toEqual([{ name: 'xds.nackBackoff', value: '"1m30s"' }]);
  });

  it('writes nothing when one entry of a patch is bad, and names every bad entry', () => {
    const { settings, published } = open();
    const heard: number[] = [];
    settings.onChange('store.cache.expirationTime', (value) => heard.push(value));

    const violations = violationsOf(() =>
      settings.update({
        'store.cache.expirationTime': '5s',
        'xds.nackBackoff': '5 seconds',
        'xds.postCreateStrategy': 'wait',
        'store.cache.ttl': '1s',
        'xds.port': '5678',
        'xds.dataplaneConfigurationRefreshInterval': '0s',
      }),
    );

    expect(violations.map((violation) => violation.field)).toEqual([
      'xds.nackBackoff',
      'xds.postCreateStrategy',
      'store.cache.ttl',
      'xds.port',
      'xds.dataplaneConfigurationRefreshInterval',
    ]);
    expect(violations[0]!.message).toContain('invalid duration "5 seconds"');
    expect(violations[1]!.message).toBe('must be one of sleep, invalidate, none, not the string "wait"');
    expect(violations[2]!.message).toContain('unknown setting');
    expect(violations[3]!.message).toBe('must be a port number from 0 to 65535, not the string "5678"');
    expect(violations[4]!.message).toBe('must be at least 1ms, got 0s');
    expect(settings.get('store.cache.expirationTime')).toBe(1_000);
    expect(storedRows()).toEqual([]);
    expect(heard).toEqual([]);
    expect(published).toEqual([]);
  });

  it('refuses a duration given as a number, since its unit would be a guess', () => {
    const { settings } = open();
    expect(violationsOf(() => settings.update({ 'store.cache.expirationTime': 1000 }))).toEqual([
      { field: 'store.cache.expirationTime', message: 'must be a duration string such as "1s" or "500ms", not the number 1000' },
    ]);
  });

  it('enforces duration bounds from the schema, with 0s allowed to turn the cache off', () => {
    const { settings } = open();
    expect(violationsOf(() => settings.update({ 'store.cache.expirationTime': '2h' }))).toEqual([
      { field: 'store.cache.expirationTime', message: 'must be at most 1h, got 2h' },
    ]);
    settings.update({ 'store.cache.expirationTime': '0s' });
    expect(settings.get('store.cache.expirationTime')).toBe(0);
  });

  it('calls change listeners once per changed setting and never for unchanged values', () => {
    const { settings, published } = open();
    const heard: [string, unknown][] = [];
    settings.onChange('store.cache.expirationTime', (value) => heard.push(['store.cache.expirationTime', value]));
    settings.onChange('xds.postCreateStrategy', (value) => heard.push(['xds.postCreateStrategy', value]));
    const unsubscribe = settings.onChange('xds.nackBackoff', (value) => heard.push(['xds.nackBackoff', value]));

    settings.update({ 'store.cache.expirationTime': '3s', 'xds.postCreateStrategy': 'sleep', 'xds.nackBackoff': '5000ms' });
    settings.update({ 'store.cache.expirationTime': '3000ms' });
    unsubscribe();
    settings.update({ 'xds.postCreateStrategy': 'none', 'xds.nackBackoff': '1s' });

    expect(heard).toEqual([
      ['store.cache.expirationTime', 3_000],
      ['xds.postCreateStrategy', 'none'],
    ]);
    expect(published).toEqual([
      { topic: 'settings.changed', changed: { 'store.cache.expirationTime': '3s' } },
      { topic: 'settings.changed', changed: { 'xds.postCreateStrategy': 'none', 'xds.nackBackoff': '1s' } },
    ]);
  });

  it('keeps a listener failure from stopping the others or the update', () => {
    const { settings } = open();
    const heard: number[] = [];
    settings.onChange('xds.nackBackoff', () => {
      throw new Error('listener bug');
    });
    settings.onChange('xds.nackBackoff', (value) => heard.push(value));
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});

    settings.update({ 'xds.nackBackoff': '2s' });

    expect(heard).toEqual([2_000]);
    expect(consoleError).toHaveBeenCalledOnce();
    expect(settings.get('xds.nackBackoff')).toBe(2_000);
  });

  it('saves a port change for the next start but keeps the port in force until then', () => {
    const { settings, published } = open();
    const heard: number[] = [];
    settings.onChange('xds.port', (value) => heard.push(value));

    expect(settings.update({ 'xds.port': 15678 })).toEqual({ 'xds.port': 15678 });

    expect(settings.get('xds.port')).toBe(5678);
    expect(settings.describe().find((setting) => setting.name === 'xds.port')).toMatchObject({ value: 5678, pendingValue: 15678 });
    expect(heard).toEqual([]);
    expect(published).toEqual([{ topic: 'settings.changed', changed: { 'xds.port': 15678 } }]);
    expect(reopen().settings.get('xds.port')).toBe(15678);
  });

  it('lets command-line overrides win over saved values without saving them', () => {
    open().settings.update({ 'apiServer.port': 15681 });

    const { settings } = reopen({
      overrides: {
        'apiServer.port': { value: 0, source: 'command line', sourceName: '--api-port' },
        'store.cache.expirationTime': { value: 0, source: 'command line', sourceName: '--ttl' },
      },
    });
    expect(settings.get('apiServer.port')).toBe(0);
    expect(settings.get('store.cache.expirationTime')).toBe(0);
    expect(settings.describe().find((setting) => setting.name === 'apiServer.port')).toMatchObject({
      value: 0,
      source: 'command line',
      sourceName: '--api-port',
      savedValue: 15681,
    });
    expect(storedRows()).toEqual([{ name: 'apiServer.port', value: '15681' }]);
    expect(reopen().settings.get('apiServer.port')).toBe(15681);
  });

  it('says where each value comes from: flag, environment variable, saved or default, and never calls a flag a pending save', () => {
    open().settings.update({ 'xds.nackBackoff': '2s' });
    const { settings } = reopen({
      overrides: {
        'apiServer.port': { value: 33977, source: 'command line', sourceName: '--api-port' },
        'xds.port': { value: 33978, source: 'environment', sourceName: 'MESHDESK_ADS_PORT' },
      },
    });
    const described = new Map(settings.describe().map((setting) => [setting.name, setting]));

    expect(described.get('apiServer.port')).toMatchObject({ value: 33977, source: 'command line', sourceName: '--api-port' });
    expect(described.get('xds.port')).toMatchObject({ value: 33978, source: 'environment', sourceName: 'MESHDESK_ADS_PORT' });
    expect(described.get('xds.nackBackoff')).toMatchObject({ value: '2s', source: 'saved', savedValue: '2s' });
    expect(described.get('xds.nackBackoff')).not.toHaveProperty('sourceName');
    expect(described.get('store.cache.expirationTime')).toMatchObject({ source: 'default' });
    // Nothing was saved for the ports: "Saved 5681; 33977 stays in force until meshdesk restarts" would be false.
    expect(described.get('apiServer.port')).not.toHaveProperty('pendingValue');
    expect(described.get('apiServer.port')).not.toHaveProperty('savedValue');
    expect(described.get('xds.port')).not.toHaveProperty('pendingValue');

    // A port saved while a flag is in force is the saved value, not a pending one.
    settings.update({ 'apiServer.port': 6000 });
    expect(settings.describe().find((setting) => setting.name === 'apiServer.port')).toMatchObject({ value: 33977, source: 'command line', savedValue: 6000 });
    expect(settings.describe().find((setting) => setting.name === 'apiServer.port')).not.toHaveProperty('pendingValue');
  });

  it('refuses invalid command-line overrides, naming each with its flag', () => {
    const overrides = {
      'xds.port': { value: 70000, source: 'command line', sourceName: '--ads-port' },
      'xds.nackBackoff': { value: -1, source: 'environment', sourceName: 'MESHDESK_NACK_BACKOFF' },
    } as const;
    expect(violationsOf(() => open({ overrides }))).toEqual([
      { field: 'xds.port (--ads-port)', message: 'must be a port number from 0 to 65535, not the number 70000' },
      { field: 'xds.nackBackoff (MESHDESK_NACK_BACKOFF)', message: 'must be a whole, non-negative number of milliseconds, not the number -1' },
    ]);
  });

  it('refuses the ADS port equal to the API port, naming both settings, whether saved, given in a PUT, by flag or by variable', () => {
    const { settings } = open();
    expect(violationsOf(() => settings.update({ 'xds.port': 5681 }))).toEqual([
      { field: 'xds.port', message: 'xds.port (given here) and apiServer.port (default) are both 5681: the ADS server and the HTTP API need a port each' },
    ]);
    expect(violationsOf(() => settings.update({ 'xds.port': 7000, 'apiServer.port': 7000 }))).toEqual([
      { field: 'xds.port', message: 'xds.port (given here) and apiServer.port (given here) are both 7000: the ADS server and the HTTP API need a port each' },
    ]);
    expect(storedRows()).toEqual([]);
    // Port 0 asks for any free port: two of them never clash.
    settings.update({ 'xds.port': 0, 'apiServer.port': 0 });

    expect(
      violationsOf(() =>
        reopen({
          overrides: {
            'apiServer.port': { value: 6000, source: 'command line', sourceName: '--api-port' },
            'xds.port': { value: 6000, source: 'environment', sourceName: 'MESHDESK_ADS_PORT' },
          },
        }),
      ),
    ).toEqual([
      { field: 'xds.port', message: 'xds.port (MESHDESK_ADS_PORT) and apiServer.port (--api-port) are both 6000: the ADS server and the HTTP API need a port each' },
    ]);
    const { settings: withFlag } = reopen({ overrides: { 'apiServer.port': { value: 6000, source: 'command line', sourceName: '--api-port' } } });
    expect(violationsOf(() => withFlag.update({ 'xds.port': 6000 }))).toEqual([
      { field: 'xds.port', message: 'xds.port (given here) and apiServer.port (--api-port) are both 6000: the ADS server and the HTTP API need a port each' },
    ]);
  });

  it('falls back to the default for a stored value it cannot use, and still starts', () => {
    const insert = db.prepare("INSERT INTO settings (name, value, modification_time) VALUES (?, ?, '2020-01-01T00:00:00Z')");
    insert.run('xds.nackBackoff', '"forever"');
    insert.run('xds.postCreateStrategy', 'not json');
    insert.run('store.cache.ttl', '"1s"');
    insert.run('xds.port', '6000');
    const consoleWarn = vi.spyOn(console, 'warn').mockImplementation(() => {});

    const { settings } = reopen();

    expect(settings.get('xds.nackBackoff')).toBe(5_000);
    expect(settings.get('xds.postCreateStrategy')).toBe('sleep');
    expect(settings.get('xds.port')).toBe(6000);
    expect(consoleWarn.mock.calls.map(([message]) => String(message))).toEqual([
      expect.stringContaining('"store.cache.ttl"'),
      expect.stringContaining('"xds.nackBackoff"'),
      expect.stringContaining('"xds.postCreateStrategy"'),
    ]);
  });
});
