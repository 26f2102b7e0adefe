/** Runs `operation` in batches and returns the median time per call in microseconds. */
export async function medianMicros(operation: () => unknown, options: { batch?: number; batches?: number } = {}): Promise<number> {
  const batch = options.batch ?? 1000;
  const batches = options.batches ?? 25;
  const samples: number[] = [];
  for (let round = 0; round < batches; round++) {
    const start = process.hrtime.bigint();
    for (let call = 0; call < batch; call++) await operation();
    samples.push(Number(process.hrtime.bigint() - start) / 1000 / batch);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

export interface BenchRow {
  benchmark: string;
  value: number;
  unit: string;
  note?: string;
}

export interface BenchOptions {
  /** Shorter runs (fewer samples, a 10 s idle window instead of 60 s): for a first look, not for the record. */
  quick: boolean;
}
