// A body worker's thread (body-reader-pool.ts starts it): reads one body at a time, off the event loop
// that serves every request and proxy stream.
import { parentPort } from 'node:worker_threads';
import { readBodyText } from './body-readers.js';
import { toCrossingError } from './crossing-errors.js';
import type { BodyJob, BodyJobAnswer } from './body-job.js';

const port = parentPort;
if (!port) throw new Error('body-worker.ts runs as a worker thread, started by the body reader pool');
port.on('message', ({ id, reader, text, args }: BodyJob) => {
  let answer: BodyJobAnswer;
  try {
    answer = { id, ok: true, value: readBodyText(reader, text, args as never) };
    port.postMessage(answer);
  } catch (error) {
    // A value that cannot be cloned throws here as well, and is answered like any other failure.
    answer = { id, ok: false, error: toCrossingError(error) };
    port.postMessage(answer);
  }
});
