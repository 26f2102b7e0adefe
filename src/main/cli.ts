// `npm run meshdesk -- <command>`: what can be done without a running control plane (and, when one
// runs on the data directory, with what it knows: its ADS address, its Dataplanes).
import { readFileSync, writeFileSync } from 'node:fs';
import type { DataplaneResource, ResourceInput } from '../shared/resources.js';
import { defaultDataDir } from './core-options.js';
import { InstanceLock, UnreadableLockError, type InstanceInfo } from './instance/instance-lock.js';
import { dialableAddress } from './net/dialable-address.js';
import type { KnownDataplane } from './xds/generate/admin-port.js';
import { parseResourceText } from './resources/parse.js';
import { validateResource } from './resources/validate.js';
import { ValidationError } from './resources/validation-error.js';
import { bootstrapToYaml, generateEnvoyBootstrap, generateGrpcBootstrap, unstoredDataplane } from './xds/generate/bootstrap.js';
import { XDS_PROTOCOLS, type XdsProtocol } from './xds/protocol/ads-service.js';

const DEFAULT_ADS_ADDRESS = '127.0.0.1:5678';

const USAGE = `usage: npm run meshdesk -- bootstrap [--grpc] [--data-dir DIR] [--ads-address HOST:PORT] [--xds-protocol sotw|delta] [--token-file FILE] [--out FILE] DATAPLANE_FILE

Prints the bootstrap that connects a proxy to meshdesk as the Dataplane in DATAPLANE_FILE
(YAML or JSON, Kuma universal format); connecting registers that Dataplane.
  (default)               Envoy bootstrap, YAML: envoy -c bootstrap.yaml
  --grpc                  gRPC xDS bootstrap, JSON: GRPC_XDS_BOOTSTRAP=bootstrap.json
  --data-dir DIR          the data directory of the meshdesk to connect to (default: MESHDESK_DATA_DIR,
                          else the one the desktop app and headless mode use); the bootstrap uses the
                          ADS address that meshdesk serves on, and an Envoy admin port none of its
                          Dataplanes uses
  --ads-address HOST:PORT where meshdesk's ADS server listens (default: the running meshdesk's,
                          else ${DEFAULT_ADS_ADDRESS}, with a warning)
  --xds-protocol P        the ADS variant Envoy speaks: sotw (State of the World, default)
                          or delta (incremental); gRPC's xDS clients speak sotw only
  --token-file FILE       the Dataplane's token (issued in Connect a proxy with "Issue a token", or
                          with POST /meshes/{mesh}/dataplanes/{name}/token), for when meshdesk
                          requires tokens (xds.dataplaneTokens)
  --out FILE              write to FILE instead of standard output
  --help                  show this text`;

/** Exit codes: 0 done, 1 the input is wrong (file, Dataplane), 2 the command line is wrong. */
const EXIT_INVALID_INPUT = 1;
const EXIT_USAGE = 2;

class UsageError extends Error {}
class InputError extends Error {}

interface BootstrapCommand {
  file: string;
  grpc: boolean;
  dataDir: string;
  /** Given with --ads-address; otherwise the running meshdesk's. */
  ads?: { host: string; port: number };
  xdsProtocol: XdsProtocol;
  tokenFile?: string;
  out?: string;
}

async function main(argv: string[]): Promise<number> {
  try {
    const command = parseCommandLine(argv);
    if (command === 'help') {
      console.log(USAGE);
      return 0;
    }
    await bootstrap(command);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`meshdesk: ${error.message}\n${USAGE}`);
      return EXIT_USAGE;
    }
    if (error instanceof InputError) {
      console.error(`meshdesk: ${error.message}`);
      return EXIT_INVALID_INPUT;
    }
    throw error;
  }
}

function parseCommandLine(argv: string[]): BootstrapCommand | 'help' {
  const [command, ...args] = argv;
  if (command === undefined) throw new UsageError('a command is required');
  if (command === '--help' || command === 'help' || args.includes('--help')) return 'help';
  if (command !== 'bootstrap') throw new UsageError(`unknown command "${command}"`);

  const files: string[] = [];
  let grpc = false;
  let adsAddress: string | undefined;
  let dataDir = process.env.MESHDESK_DATA_DIR ?? defaultDataDir();
  let xdsProtocol: string = 'sotw';
  let out: string | undefined;
  let tokenFile: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const [flag, inline] = arg.startsWith('--') ? (arg.split('=', 2) as [string, string | undefined]) : [arg, undefined];
    const value = (): string => {
      const given = inline ?? args[++index];
      if (given === undefined || given === '') throw new UsageError(`${flag} needs a value`);
      return given;
    };
    if (flag === '--grpc' && inline === undefined) grpc = true;
    else if (flag === '--ads-address') adsAddress = value();
    else if (flag === '--data-dir') dataDir = value();
    else if (flag === '--xds-protocol') xdsProtocol = value();
    else if (flag === '--out') out = value();
    else if (flag === '--token-file') tokenFile = value();
    else if (arg.startsWith('-')) throw new UsageError(`unknown option "${arg}"`);
    else files.push(arg);
  }
  if (files.length !== 1) {
    throw new UsageError(files.length === 0 ? 'bootstrap needs a Dataplane file' : `bootstrap takes one Dataplane file, got ${files.length}: ${files.join(', ')}`);
  }
  return {
    file: files[0]!,
    grpc,
    dataDir,
    ...(adsAddress !== undefined && { ads: parseAdsAddress(adsAddress) }),
    xdsProtocol: parseXdsProtocol(xdsProtocol, grpc),
    ...(tokenFile !== undefined && { tokenFile }),
    ...(out !== undefined && { out }),
  };
}

/** `host:port` or `[ipv6]:port`. */
function parseAdsAddress(address: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(address);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535) {
    throw new UsageError(`--ads-address must be HOST:PORT with a port from 1 to 65535 (e.g. ${DEFAULT_ADS_ADDRESS}), got "${address}"`);
  }
  return { host: match[1] ?? match[2]!, port };
}

function parseXdsProtocol(protocol: string, grpc: boolean): XdsProtocol {
  if (!(XDS_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new UsageError(`--xds-protocol must be ${XDS_PROTOCOLS.map((each) => `"${each}"`).join(' or ')}, got "${protocol}"`);
  }
  if (grpc && protocol !== 'sotw') throw new UsageError('--xds-protocol delta is for Envoy: gRPC xDS clients speak State of the World only');
  return protocol as XdsProtocol;
}

/** The meshdesk running on the data directory, if any; a lock file nobody can read is warned about and ignored. */
function runningInstance(dataDir: string): InstanceInfo | undefined {
  try {
    return InstanceLock.owner(dataDir);
  } catch (error) {
    if (!(error instanceof UnreadableLockError)) throw error;
    console.error(`meshdesk: warning: ${error.message}`);
    return undefined;
  }
}

/** --ads-address, else the running meshdesk's ADS address, else the default with a warning naming it. */
function adsAddressFor(command: BootstrapCommand, instance: InstanceInfo | undefined): { host: string; port: number } {
  if (command.ads) return command.ads;
  if (instance?.adsAddress) return dialableAddress(parseAdsAddress(instance.adsAddress));
  const why = instance
    ? `the meshdesk on data directory ${command.dataDir} (pid ${instance.pid}) has not bound its ADS server yet`
    : `no meshdesk is running on data directory ${command.dataDir}`;
  console.error(`meshdesk: warning: ${why}; the bootstrap uses the default ADS address ${DEFAULT_ADS_ADDRESS}. Start meshdesk first, or give --ads-address HOST:PORT (or --data-dir DIR)`);
  return parseAdsAddress(DEFAULT_ADS_ADDRESS);
}

/** The running meshdesk's Dataplanes, so that the admin port is one none of them uses; none when it cannot say. */
async function knownDataplanes(instance: InstanceInfo | undefined): Promise<KnownDataplane[]> {
  if (!instance?.apiAddress) return [];
  const api = dialableAddress(parseAdsAddress(instance.apiAddress));
  const url = `http://${api.host.includes(':') ? `[${api.host}]` : api.host}:${api.port}/dataplanes`;
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`answered ${response.status}`);
    const { items } = (await response.json()) as { items: KnownDataplane[] };
    return items.map(({ mesh, name, creationTime, networking }) => ({ mesh, name, creationTime, networking }));
  } catch (error) {
    console.error(`meshdesk: warning: cannot list the running meshdesk's Dataplanes (${url}: ${(error as Error).message}); the admin port may be one of theirs`);
    return [];
  }
}

async function bootstrap(command: BootstrapCommand): Promise<void> {
  const { file, grpc, xdsProtocol, tokenFile, out } = command;
  const dataplane = readDataplane(file);
  const token = tokenFile === undefined ? undefined : readToken(tokenFile);
  const nodeId = `${dataplane.meta.mesh}.${dataplane.meta.name}`;
  const instance = runningInstance(command.dataDir);
  const ads = adsAddressFor(command, instance);
  const text = grpc
    ? `${JSON.stringify(generateGrpcBootstrap({ nodeId, adsHost: ads.host, adsPort: ads.port, locality: {}, dataplane, token }), null, 2)}\n`
    : bootstrapToYaml(generateEnvoyBootstrap({ dataplane, adsHost: ads.host, adsPort: ads.port, token, knownDataplanes: await knownDataplanes(instance), xdsProtocol }));
  if (out === undefined) {
    process.stdout.write(text);
    return;
  }
  try {
    writeFileSync(out, text);
  } catch (error) {
    throw new InputError(`cannot write ${out}: ${(error as Error).message}`);
  }
  console.log(`wrote the ${grpc ? 'gRPC' : 'Envoy'} bootstrap of proxy "${nodeId}" (ADS ${ads.host}:${ads.port}) to ${out}`);
}

/** A token file holds the token alone, as issued; a trailing newline (an editor's, `echo`'s) is not part of it. */
function readToken(file: string): string {
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new InputError(`cannot read the token file ${file}: ${(error as Error).message}`);
  }
  if (!/^[A-Za-z0-9_-]+$/.test(token)) {
    throw new InputError(`${file} does not hold a token: expected the token alone (letters, digits, "-" and "_"), as meshdesk issued it`);
  }
  return token;
}

/** The file's Dataplane, validated as the API validates it: every violation is reported, by field. */
function readDataplane(file: string): DataplaneResource {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return unstoredDataplane(validateResource(parseResourceText(text), { type: 'Dataplane' }) as ResourceInput<'Dataplane'>);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const violations = error.violations.map(({ field, message }) => `  ${field === '' ? message : `${field}: ${message}`}`);
    throw new InputError(`${file} is not a valid Dataplane: ${error.title}\n${violations.join('\n')}`);
  }
}

process.exitCode = await main(process.argv.slice(2));
