// `npm run bench [-- --quick] [suite…]`: every benchmark suite in one run, printed as one table and
// written as JSON. Ratios are only meaningful between rows of the same run: this machine is shared and noisy.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { BenchOptions, BenchRow } from './measure.js';
import { analysis } from './suites/analysis.js';
import { attackStalls } from './suites/attack-stalls.js';
import { cachedReads } from './suites/cached-reads.js';
import { firstConfig } from './suites/first-config.js';
import { fleet } from './suites/fleet.js';
import { generation, policyGeneration } from './suites/generation.js';
import { hostileParsing } from './suites/hostile-parsing.js';
import { meshService } from './suites/meshservice.js';
import { policyBounds } from './suites/policy-bounds.js';
import { policyWarnings } from './suites/policy-warnings.js';
import { proxiesView } from './suites/proxies-view.js';
import { proxyRecords } from './suites/proxy-records.js';
import { services } from './suites/services.js';
import { storageLag } from './suites/storage-lag.js';

const SUITES: Record<string, (options: BenchOptions) => Promise<BenchRow[]>> = {
  'cached reads': cachedReads,
  generation,
  'policy generation': policyGeneration,
  'first config': firstConfig,
  fleet,
  'proxies view': proxiesView,
  'hostile parsing': hostileParsing,
  'proxy records': proxyRecords,
  'policy bounds': policyBounds,
  analysis,
  services,
  'policy warnings': policyWarnings,
  'storage lag': storageLag,
  meshservice: meshService,
  'attack stalls': attackStalls,
};

const args = process.argv.slice(2);
const options: BenchOptions = { quick: args.includes('--quick') };
const selected = args.filter((arg) => !arg.startsWith('--'));
const unknown = selected.filter((name) => !(name in SUITES));
if (unknown.length > 0) throw new Error(`unknown suite(s) ${unknown.join(', ')}; known: ${Object.keys(SUITES).join(', ')}`);
const rows: BenchRow[] = [];
const startedAt = new Date().toISOString();
const loadBefore = loadavg()[0]!;
for (const [name, suite] of Object.entries(SUITES)) {
  if (selected.length > 0 && !selected.includes(name)) continue;
  process.stderr.write(`running ${name}…\n`);
  try {
    rows.push(...(await suite(options)));
  } catch (error) {
    // One failed suite (e.g. a deadline on an overloaded machine) must not lose the others' rows.
    process.stderr.write(`suite ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    rows.push({ benchmark: `${name}: FAILED`, value: Number.NaN, unit: '', note: error instanceof Error ? error.message : String(error) });
  }
}

const width = Math.max(...rows.map((row) => row.benchmark.length));
console.log(`${'benchmark'.padEnd(width)}  ${'value'.padStart(12)}  unit`);
for (const row of rows) {
  const value = row.value >= 100 ? row.value.toFixed(0) : row.value.toFixed(2);
  console.log(`${row.benchmark.padEnd(width)}  ${value.padStart(12)}  ${row.unit}${row.note ? `  (${row.note})` : ''}`);
}
const load = { before: loadBefore, after: loadavg()[0]! };
console.log(`\n1-minute load average: ${load.before.toFixed(2)} before, ${load.after.toFixed(2)} after, on ${cpus().length} cores`);
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/bench-${startedAt.replace(/[:.]/g, '-')}.json`;
writeFileSync(
  file,
  JSON.stringify({ startedAt, node: process.version, cpu: cpus()[0]?.model, cores: cpus().length, quick: options.quick, load, rows }, null, 2),
);
console.log(`written to ${file}`);
// gRPC channels and timers of the suites may linger; the run is over.
process.exit(0);
