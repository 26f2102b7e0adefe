import { afterEach, describe, expect, it } from 'vitest';
import { largeJsonDataplane, largeYamlDataplane } from '../../../../test/support/large-bodies.js';
import { ValidationError } from '../../resources/validation-error.js';
import { ApiError } from '../api-error.js';
import { BodyReaderPool } from './body-reader-pool.js';
import type { BodyReaderArgs, BodyReaderName } from './body-readers.js';

const pools: BodyReaderPool[] = [];
const pool = (options: ConstructorParameters<typeof BodyReaderPool>[0]) => {
  const created = new BodyReaderPool(options);
  pools.push(created);
  return created;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((each) => each.close()));
});

/** What a read gives, value or error, with the error's class and every field the API answers from. */
async function outcome<K extends BodyReaderName>(reader: BodyReaderPool, name: K, text: string, args: BodyReaderArgs<K>) {
  try {
    return { value: await reader.read(name, text, args) };
  } catch (error) {
    if (error instanceof ApiError) return { api: { status: error.status, title: error.title, detail: error.message, causes: error.causes } };
    if (error instanceof ValidationError) return { validation: { title: error.title, violations: error.violations, message: error.message } };
    throw error;
  }
}

const expected = (name: string) => ({ type: 'Dataplane' as const, mesh: 'default', name });

describe('BodyReaderPool', () => {
  // Each text once on the event loop and once in a worker: the worker's answer is the same, errors of the same class and fields.
  const inline = () => pool({ inlineBelowChars: Number.POSITIVE_INFINITY });
  const inWorker = () => pool({ inlineBelowChars: 0, workers: 1 });

  it('gives the validated input a worker read, as reading it inline gives', async () => {
    const text = largeYamlDataplane('big', 'default', 2_000);
    const read = await outcome(inWorker(), 'resource', text, expected('big'));
    expect(read).toEqual(await outcome(inline(), 'resource', text, expected('big')));
    expect(Object.keys((read.value!.spec as { networking: { inbound: { tags: object }[] } }).networking.inbound[0]!.tags)).toHaveLength(2_001);
  });

  it("keeps Kuma's validation messages and field paths, YAML's line and column, and Go's JSON words", async () => {
    const invalid = largeJsonDataplane('big', 'default', 2_000).replace('"port":8080', '"port":0').replace('"t0":', '"bad tag!":');
    const cases: [BodyReaderName, string, unknown][] = [
      ['resource', invalid, expected('big')],
      ['resource', largeJsonDataplane('big', 'default', 2_000), expected('other')],
      ['resource', `${largeYamlDataplane('big', 'default', 2_000)}  - port: [\n`, expected('big')],
      ['resource', `${largeJsonDataplane('big', 'default', 2_000)}}`, expected('big')],
      ['policy', largeYamlDataplane('big', 'default', 2_000), { mesh: 'default' }],
      ['dataplane', invalid, undefined],
      ['import', `${largeYamlDataplane('big', 'default', 2_000)}---\n${invalid}`, undefined],
    ];
    const [worker, loop] = [inWorker(), inline()];
    for (const [name, text, args] of cases) {
      const inWorkerOutcome = await outcome(worker, name, text, args as never);
      expect(inWorkerOutcome.value).toBeUndefined();
      expect(inWorkerOutcome).toEqual(await outcome(loop, name, text, args as never));
    }
  });

  it('refuses a large body with a 503 while its queue is full, and reads the ones it took', async () => {
    const reader = pool({ inlineBelowChars: 0, workers: 1, queueLimit: 1 });
    const text = largeJsonDataplane('big', 'default', 2_000);
    const running = reader.read('resource', text, expected('big'));
    const queued = reader.read('resource', text, expected('big'));
    const refused = await reader.read('resource', text, expected('big')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 503, title: 'Too many large bodies', retryAfterSeconds: 1 });
    expect((await running).name).toBe('big');
    expect((await queued).name).toBe('big');
  });

  it('reads a small body inline, without starting a worker', async () => {
    const reader = pool({ workers: 0 });
    expect((await reader.read('resource', largeJsonDataplane('small', 'default', 10), expected('small'))).name).toBe('small');
  });
});
