// `npm run meshdesk -- <command>`: what can be done without a running control plane (and, when one
// runs on the data directory, with what it knows: its ADS address, its Dataplanes).
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { POLICY_TYPES } from '../shared/policy-types.js';
import type { DataplaneResource, ResourceInput } from '../shared/resources.js';
import { defaultDataDir } from './core-options.js';
import { runningOwner, type InstanceInfo } from './instance/instance-file.js';
import { grpcCertificateFiles } from './mtls/grpc-certificate-files.js';
import { dialableAddress } from './net/dialable-address.js';
import type { KnownDataplane } from './xds/generate/admin-port.js';
import { parseResourceText } from './resources/parse.js';
import { validateResource } from './resources/validate.js';
import { ValidationError } from './resources/validation-error.js';
import type { MeshAnalysis } from '../shared/analysis-types.js';
import type { ImportReport } from '../shared/api-types.js';
import { formatAnalysis } from './analysis/format-findings.js';
import { formatImported } from './transfer/import.js';
import { bootstrapToYaml, generateEnvoyBootstrap, generateGrpcBootstrap, unstoredDataplane } from './xds/generate/bootstrap.js';
import { XDS_PROTOCOLS, type XdsProtocol } from './xds/protocol/ads-service.js';

const DEFAULT_ADS_ADDRESS = '127.0.0.1:5678';

const USAGE = `usage: npm run meshdesk -- bootstrap [--grpc] [--data-dir DIR] [--ads-address HOST:PORT] [--xds-protocol sotw|delta] [--token-file FILE] [--out FILE] DATAPLANE_FILE
       npm run meshdesk -- export [--data-dir DIR] [--include-proxy-registered] [--out FILE]
       npm run meshdesk -- import [--data-dir DIR] [--overwrite] [--dry-run] FILE
       npm run meshdesk -- analyze [--data-dir DIR] [--mesh MESH] [--json] [FILE...]

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
  --token-file FILE       the Dataplane's token (saved from GET /meshes/{mesh}/dataplanes/{name}/token),
                          which meshdesk requires where xds.dataplaneTokens says (by default in
                          meshes with mTLS); without it, the running meshdesk's token for the Dataplane
  --out FILE              write to FILE instead of standard output
  --help                  show this text

export: every Mesh, then every Dataplane, then every policy (each mesh's initial ones included:
${POLICY_TYPES.join(', ')}),
as the multi-document YAML that \`kumactl apply -f\` takes (name the file .yaml or .yml for kumactl).
Settings and tokens are meshdesk's own and stay out.
  --include-proxy-registered  also the Dataplanes proxies registered themselves (in Kuma, kuma-dp
                          registers those when the proxy starts)
  --out FILE              write FILE (whole or not at all) instead of standard output

import: the resources of FILE ("-" for standard input): an export, or what \`kumactl get meshes -o yaml\`
and \`kumactl get dataplanes -o yaml\` print. Every document is checked first: one invalid document
and nothing is written. Nothing is ever deleted.
  --overwrite             update resources that exist with other content (refused without it)
  --dry-run               say what would be created and updated, write nothing

analyze: what will not work in a mesh (docs/analysis.md lists every finding): policies overridden
everywhere, route matches that can never be chosen, outbounds denied with mTLS on, retries that
cannot fit their timeout. With FILEs (policies, YAML or JSON, "-" for standard input), the mesh as it
would be with them applied; nothing is written. Exits 3 when there is an error finding, so that a
pre-commit hook or CI can stop on it.
  --mesh MESH             the mesh (default: default)
  --json                  the analysis as GET /meshes/{mesh}/_analysis answers it

export, import and analyze talk to the meshdesk running on the data directory (--data-dir DIR, else
MESHDESK_DATA_DIR, else the default), through its API; without one they refuse.`;

/** Exit codes: 0 done, 1 the input is wrong (file, Dataplane), 2 the command line is wrong, 3 the analysis found an error. */
const EXIT_INVALID_INPUT = 1;
const EXIT_USAGE = 2;
const EXIT_ANALYSIS_ERRORS = 3;

class UsageError extends Error {}
class InputError extends Error {}

interface BootstrapCommand {
  kind: 'bootstrap';
  file: string;
  grpc: boolean;
  dataDir: string;
  /** Given with --ads-address; otherwise the running meshdesk's. */
  ads?: { host: string; port: number };
  xdsProtocol: XdsProtocol;
  tokenFile?: string;
  out?: string;
}

interface ExportCommand {
  kind: 'export';
  dataDir: string;
  includeProxyRegistered: boolean;
  out?: string;
}

interface ImportCommand {
  kind: 'import';
  dataDir: string;
  /** '-' is standard input. */
  file: string;
  overwrite: boolean;
  dryRun: boolean;
}

interface AnalyzeCommand {
  kind: 'analyze';
  dataDir: string;
  mesh: string;
  json: boolean;
  /** Policies to analyze before they are applied; '-' is standard input. */
  files: string[];
}

type Command = BootstrapCommand | ExportCommand | ImportCommand | AnalyzeCommand;

async function main(argv: string[]): Promise<number> {
  try {
    const command = parseCommandLine(argv);
    if (command === 'help') {
      console.log(USAGE);
      return 0;
    }
    if (command.kind === 'bootstrap') await bootstrap(command);
    else if (command.kind === 'export') await exportStore(command);
    else if (command.kind === 'analyze') return await analyze(command);
    else await importFile(command);
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

function parseCommandLine(argv: string[]): Command | 'help' {
  const [command, ...args] = argv;
  if (command === undefined) throw new UsageError('a command is required');
  if (command === '--help' || command === 'help' || args.includes('--help')) return 'help';
  const dataDirOf = (flags: Flags): string => flags.value('--data-dir') ?? process.env.MESHDESK_DATA_DIR ?? defaultDataDir();
  if (command === 'bootstrap') {
    const { flags, files } = readArgs(args, { switches: ['--grpc'], values: ['--ads-address', '--data-dir', '--out', '--token-file', '--xds-protocol'] });
    const adsAddress = flags.value('--ads-address');
    const tokenFile = flags.value('--token-file');
    const out = flags.value('--out');
    return {
      kind: 'bootstrap',
      file: oneFile(command, 'Dataplane file', files),
      grpc: flags.has('--grpc'),
      dataDir: dataDirOf(flags),
      xdsProtocol: parseXdsProtocol(flags.value('--xds-protocol') ?? 'sotw', flags.has('--grpc')),
      ...(adsAddress !== undefined && { ads: parseAdsAddress(adsAddress) }),
      ...(tokenFile !== undefined && { tokenFile }),
      ...(out !== undefined && { out }),
    };
  }
  if (command === 'export') {
    const { flags, files } = readArgs(args, { switches: ['--include-proxy-registered'], values: ['--data-dir', '--out'] });
    if (files.length > 0) throw new UsageError(`export takes no file (use --out FILE), got ${files.join(', ')}`);
    const out = flags.value('--out');
    return {
      kind: 'export',
      dataDir: dataDirOf(flags),
      includeProxyRegistered: flags.has('--include-proxy-registered'),
      ...(out !== undefined && { out }),
    };
  }
  if (command === 'import') {
    const { flags, files } = readArgs(args, { switches: ['--overwrite', '--dry-run'], values: ['--data-dir'] });
    return {
      kind: 'import',
      dataDir: dataDirOf(flags),
      file: oneFile(command, 'file of resources', files),
      overwrite: flags.has('--overwrite'),
      dryRun: flags.has('--dry-run'),
    };
  }
  if (command === 'analyze') {
    const { flags, files } = readArgs(args, { switches: ['--json'], values: ['--data-dir', '--mesh'] });
    return { kind: 'analyze', dataDir: dataDirOf(flags), mesh: flags.value('--mesh') ?? 'default', json: flags.has('--json'), files };
  }
  throw new UsageError(`unknown command "${command}"`);
}

interface Flags {
  has(flag: string): boolean;
  value(flag: string): string | undefined;
}

/** `--flag`, `--flag VALUE` and `--flag=VALUE`; anything not starting with '-' is a file ('-' alone is standard input). */
function readArgs(args: string[], known: { switches: string[]; values: string[] }): { flags: Flags; files: string[] } {
  const switches = new Set<string>();
  const values = new Map<string, string>();
  const files: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const [flag, inline] = arg.startsWith('--') ? (arg.split('=', 2) as [string, string | undefined]) : [arg, undefined];
    if (known.switches.includes(flag) && inline === undefined) {
      switches.add(flag);
    } else if (known.values.includes(flag)) {
      const given = inline ?? args[++index];
      if (given === undefined || given === '') throw new UsageError(`${flag} needs a value`);
      values.set(flag, given);
    } else if (arg.startsWith('-') && arg !== '-') {
      throw new UsageError(`unknown option "${arg}"`);
    } else {
      files.push(arg);
    }
  }
  return { flags: { has: (flag) => switches.has(flag), value: (flag) => values.get(flag) }, files };
}

function oneFile(command: string, noun: string, files: string[]): string {
  if (files.length === 1) return files[0]!;
  throw new UsageError(files.length === 0 ? `${command} needs a ${noun}` : `${command} takes one ${noun}, got ${files.length}: ${files.join(', ')}`);
}

function parseXdsProtocol(protocol: string, grpc: boolean): XdsProtocol {
  if (!(XDS_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new UsageError(`--xds-protocol must be ${XDS_PROTOCOLS.map((each) => `"${each}"`).join(' or ')}, got "${protocol}"`);
  }
  if (grpc && protocol !== 'sotw') throw new UsageError('--xds-protocol delta is for Envoy: gRPC xDS clients speak State of the World only');
  return protocol as XdsProtocol;
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
  const url = `${apiBaseUrl(instance.apiAddress)}/dataplanes`;
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

/**
 * The Dataplane's token from the running meshdesk (`GET …/token`), as its own bootstrap routes put
 * it in, so that the proxy is let in where tokens are required; none, with a warning, when it cannot say.
 */
async function runningToken(instance: InstanceInfo | undefined, { meta: { mesh, name } }: DataplaneResource): Promise<string | undefined> {
  if (!instance?.apiAddress) return undefined;
  const url = `${apiBaseUrl(instance.apiAddress)}/meshes/${encodeURIComponent(mesh)}/dataplanes/${encodeURIComponent(name)}/token`;
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`answered ${response.status}: ${await response.text()}`);
    return (await response.text()).trim();
  } catch (error) {
    console.error(`meshdesk: warning: cannot get the Dataplane's token (${url}: ${(error as Error).message}); the bootstrap carries none, and a mesh with mTLS refuses the proxy (give --token-file)`);
    return undefined;
  }
}

/** The files the running meshdesk writes this gRPC proxy's certificates to, in its data directory. */
function grpcCertificates(dataDir: string, { meta: { mesh, name } }: DataplaneResource) {
  return { mesh, files: grpcCertificateFiles(dataDir, mesh, name) };
}

async function bootstrap(command: BootstrapCommand): Promise<void> {
  const { file, grpc, xdsProtocol, tokenFile, out } = command;
  const dataplane = readDataplane(file);
  const nodeId = `${dataplane.meta.mesh}.${dataplane.meta.name}`;
  const instance = runningOwner(command.dataDir);
  const token = tokenFile === undefined ? await runningToken(instance, dataplane) : readToken(tokenFile);
  const ads = adsAddressFor(command, instance);
  const text = grpc
    ? `${JSON.stringify(generateGrpcBootstrap({ nodeId, adsHost: ads.host, adsPort: ads.port, locality: {}, dataplane, token, certificates: grpcCertificates(command.dataDir, dataplane) }), null, 2)}\n`
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

/** `http://host:port` of an API address from the instance file, dialable even when it is a wildcard bind. */
function apiBaseUrl(apiAddress: string): string {
  const api = dialableAddress(parseAdsAddress(apiAddress));
  return `http://${api.host.includes(':') ? `[${api.host}]` : api.host}:${api.port}`;
}

/**
 * The running meshdesk's API. Export, import and analyze refuse without one: the data directory's database
 * belongs to the meshdesk that holds it, and nothing opens it behind a running meshdesk's back.
 */
function runningApi(dataDir: string): string {
  const instance = runningOwner(dataDir);
  if (!instance) {
    throw new InputError(
      `no meshdesk is running on data directory ${dataDir}; export, import and analyze go through a running meshdesk's API: start it (npm run headless -- --data-dir ${dataDir}, or the desktop app) and try again`,
    );
  }
  if (!instance.apiAddress) {
    throw new InputError(`the meshdesk on data directory ${dataDir} (pid ${instance.pid}) is still starting; try again in a moment`);
  }
  return apiBaseUrl(instance.apiAddress);
}

/** The body of a successful answer; an error answer becomes an InputError with its title, details and causes. */
async function callApi(base: string, method: 'GET' | 'POST', path: string, body?: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, { method, body, headers: body === undefined ? {} : { 'content-type': 'application/yaml' } });
  } catch (error) {
    throw new InputError(`cannot reach meshdesk's API at ${base}: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (response.ok) return text;
  let explained: string;
  try {
    const { title, details, detail, causes } = JSON.parse(text) as { title: string; details?: string; detail?: string; causes?: { field: string; message: string }[] };
    const lines = (causes ?? []).map(({ field, message }) => `  ${field === '' ? message : `${field}: ${message}`}`);
    explained = [`${title}: ${details ?? detail}`, ...lines].join('\n');
  } catch {
    explained = `meshdesk answered ${response.status}: ${text}`;
  }
  throw new InputError(explained);
}

async function exportStore(command: ExportCommand): Promise<void> {
  const base = runningApi(command.dataDir);
  const text = await callApi(base, 'GET', `/export${command.includeProxyRegistered ? '?includeProxyRegistered=true' : ''}`);
  if (command.out === undefined) {
    process.stdout.write(text);
    return;
  }
  writeFileAtomically(command.out, text);
  const count = text.match(/^---$/gm)?.length ?? 0;
  const left = command.includeProxyRegistered ? '' : '; Dataplanes registered by their proxies are left out (--include-proxy-registered adds them)';
  console.error(`exported ${count} ${count === 1 ? 'resource' : 'resources'} to ${command.out}${left}. Apply it to Kuma with: kumactl apply -f ${command.out}`);
}

/** Written to a temporary file beside it, flushed, then renamed over it: a reader sees the old file or the whole new one. */
function writeFileAtomically(file: string, text: string): void {
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  try {
    const fd = openSync(temporary, 'w');
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new InputError(`cannot write ${file}: ${(error as Error).message}`);
  }
}

async function importFile(command: ImportCommand): Promise<void> {
  // Asked first: without a meshdesk to import into, standard input is not waited for.
  const base = runningApi(command.dataDir);
  let text: string;
  try {
    text = readFileSync(command.file === '-' ? 0 : command.file, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read ${command.file}: ${(error as Error).message}`);
  }
  const query = new URLSearchParams({ overwrite: String(command.overwrite), dryRun: String(command.dryRun) });
  const report = JSON.parse(await callApi(base, 'POST', `/import?${query}`, text)) as ImportReport;
  for (const resource of report.resources) console.log(formatImported(resource));
  if (report.dryRun) console.log('dry run: nothing was written');
}

async function analyze(command: AnalyzeCommand): Promise<number> {
  const base = runningApi(command.dataDir);
  const path = `/meshes/${encodeURIComponent(command.mesh)}/_analysis`;
  const texts = command.files.map((file) => {
    try {
      return readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (error) {
      throw new InputError(`cannot read ${file}: ${(error as Error).message}`);
    }
  });
  const answer = texts.length === 0 ? await callApi(base, 'GET', path) : await callApi(base, 'POST', path, texts.join('\n---\n'));
  const analysis = JSON.parse(answer) as MeshAnalysis;
  console.log(command.json ? JSON.stringify(analysis, null, 2) : formatAnalysis(analysis));
  return analysis.counts.error > 0 ? EXIT_ANALYSIS_ERRORS : 0;
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
