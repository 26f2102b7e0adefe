import type { BodyReaderArgs, BodyReaderName } from './body-readers.js';
import type { CrossingError } from './crossing-errors.js';

/** What the pool sends a body worker. */
export interface BodyJob<K extends BodyReaderName = BodyReaderName> {
  id: number;
  reader: K;
  text: string;
  args: BodyReaderArgs<K>;
}

/** What a body worker answers: the reader's typed result, or what it threw. */
export type BodyJobAnswer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: CrossingError };
