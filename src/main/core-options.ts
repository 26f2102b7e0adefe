import { homedir } from 'node:os';
import { join } from 'node:path';

/** The flag or environment variable a port was given with. */
export interface PortOrigin {
  source: 'command line' | 'environment';
  sourceName: string;
}

export interface CoreOptions {
  /** Folder holding meshdesk.db; created if missing. */
  dataDir: string;
  /** Address every listener binds. Loopback unless the user says otherwise (SPEC §9). */
  host: string;
  /** Override the persisted `apiServer.port` setting for this run (0 = any free port). */
  apiPort?: number;
  /** Override the persisted `xds.port` setting for this run (0 = any free port). */
  adsPort?: number;
  /** Where `apiPort` and `adsPort` came from, for Settings to say; a flag when not given. */
  portOrigins?: { apiPort?: PortOrigin; adsPort?: PortOrigin };
  /** better-sqlite3's compiled addon to load; the Electron shell passes its Electron-ABI build (SPEC §1). */
  nativeBinding?: string;
  /**
   * Runs the zone's service-model components (MeshService generator, VIP allocator, hostname
   * generator, status updater: meshservice/controller.ts); on unless false. Kuma's api-server tests
   * run without them, and so do the tests that replay those goldens.
   */
  meshServiceComponents?: boolean;
}

/**
 * The embedded default data directory: the folder Electron's `app.getPath('userData')` gives
 * for an app named meshdesk, so the desktop app and headless mode share one database.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'meshdesk');
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'meshdesk');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'meshdesk');
}

export const HEADLESS_USAGE = `usage: npm run headless -- [--data-dir DIR] [--api-port N] [--ads-port N] [--host ADDRESS] [--demo] [--help]
  --demo  also start the demo mesh (what \`npm run demo\` does); Ctrl-C stops it and removes what it wrote
environment: MESHDESK_DATA_DIR, MESHDESK_API_PORT, MESHDESK_ADS_PORT, MESHDESK_HOST
(flags win over environment variables, which win over the settings saved in the data directory)`;

/** `--help` or `-h` anywhere on the command line: print the usage and do nothing else. */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

/** `--demo` anywhere on headless mode's command line, and the core's flags without it. */
export function takeDemoFlag(argv: readonly string[]): { demo: boolean; coreArgs: string[] } {
  return { demo: argv.includes('--demo'), coreArgs: argv.filter((arg) => arg !== '--demo') };
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(message: string) {
    super(`${message}\n${HEADLESS_USAGE}`);
  }
}

/** Command-line flags win over environment variables, which win over defaults and persisted settings. */
export function parseCoreOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): CoreOptions {
  const flags = new Map<string, string>();
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    const [flag, inline] = arg.split('=', 2) as [string, string | undefined];
    if (!['--data-dir', '--api-port', '--ads-port', '--host'].includes(flag)) throw new UsageError(`unknown argument "${arg}"`);
    const value = inline ?? argv[++index];
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    flags.set(flag, value);
  }
  const pick = (flag: string, variable: string) => flags.get(flag) ?? env[variable] ?? undefined;
  const portOrigins: NonNullable<CoreOptions['portOrigins']> = {};
  const options: CoreOptions = {
    dataDir: pick('--data-dir', 'MESHDESK_DATA_DIR') ?? defaultDataDir(env),
    host: pick('--host', 'MESHDESK_HOST') ?? '127.0.0.1',
    portOrigins,
  };
  /** The port and where it came from, so that Settings can say "--api-port" or "MESHDESK_API_PORT". */
  const port = (flag: string, variable: string): [number, PortOrigin] | undefined => {
    const text = pick(flag, variable);
    if (text === undefined) return undefined;
    const origin: PortOrigin = flags.has(flag) ? { source: 'command line', sourceName: flag } : { source: 'environment', sourceName: variable };
    return [parsePort(text, origin.sourceName), origin];
  };
  const api = port('--api-port', 'MESHDESK_API_PORT');
  const ads = port('--ads-port', 'MESHDESK_ADS_PORT');
  if (api) [options.apiPort, portOrigins.apiPort] = api;
  if (ads) [options.adsPort, portOrigins.adsPort] = ads;
  return options;
}

function parsePort(text: string, from: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`${from} must be a port number from 0 to 65535, got "${text}"`);
  return port;
}
