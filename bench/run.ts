// `npm run bench`: every benchmark suite in one run, printed as one table and written as JSON.
// Ratios are only meaningful between rows of the same run: this machine is shared and noisy.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { BenchRow } from './measure.js';
import { cachedReads } from './suites/cached-reads.js';

const SUITES: Record<string, () => Promise<BenchRow[]>> = {
  'cached reads': cachedReads,
};

const selected = process.argv.slice(2);
const rows: BenchRow[] = [];
for (const [name, suite] of Object.entries(SUITES)) {
  if (selected.length > 0 && !selected.includes(name)) continue;
  process.stderr.write(`running ${name}…\n`);
  rows.push(...(await suite()));
}

const width = Math.max(...rows.map((row) => row.benchmark.length));
console.log(`${'benchmark'.padEnd(width)}  ${'value'.padStart(12)}  unit`);
for (const row of rows) {
  const value = row.value >= 100 ? row.value.toFixed(0) : row.value.toFixed(2);
  console.log(`${row.benchmark.padEnd(width)}  ${value.padStart(12)}  ${row.unit}${row.note ? `  (${row.note})` : ''}`);
}
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
writeFileSync(file, JSON.stringify({ node: process.version, cpu: cpus()[0]?.model, cores: cpus().length, rows }, null, 2));
console.log(`\nwritten to ${file}`);
