import { parseResourceText } from '../../src/main/resources/parse.js';
import { ValidationError } from '../../src/main/resources/validation-error.js';
import { medianMicros, type BenchOptions, type BenchRow } from '../measure.js';

const keys = (n: number) => Array.from({ length: n }, (_, index) => `k${index}`);

/**
 * The texts of issue 12 that blocked the event loop for seconds (a 309 KB body with 20,000 keys:
 * 12.4 s; 1 MB: about 3 minutes): parsed or refused, in time linear in their size.
 */
const TEXTS: { name: string; text: string }[] = [
  { name: 'YAML mapping of 20,000 keys', text: keys(20_000).map((key) => `${key}: v`).join('\n') },
  { name: 'JSON repeating one key 20,000 times', text: `{${Array(20_000).fill('"name": "x"').join(', ')}}` },
  { name: 'YAML of 5,000 anchors and aliases', text: keys(5_000).map((key) => `${key}: &${key} x\n${key}-again: *${key}`).join('\n') },
  { name: '1 MB YAML mapping', text: keys(60_000).map((key) => `${key}: value-${key}`).join('\n') },
  { name: '1 MB plain JSON object', text: JSON.stringify(Object.fromEntries(keys(50_000).map((key) => [key, `value-${key}`]))) },
];

export async function hostileParsing(options: BenchOptions): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const { name, text } of TEXTS) {
    let outcome = 'parsed';
    const micros = await medianMicros(
      () => {
        try {
          parseResourceText(text);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          outcome = 'refused';
        }
      },
      { batch: 1, batches: options.quick ? 3 : 7 },
    );
    rows.push({ benchmark: `parse ${name}`, value: micros / 1000, unit: 'ms', note: `${Math.round(text.length / 1024)} KB, ${outcome}` });
  }
  return rows;
}
