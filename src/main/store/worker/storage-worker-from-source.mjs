// The storage worker run from its TypeScript source (tsx, vitest): a worker thread does not take
// its parent's loaders, so it registers tsx's own before loading the worker.
import { register } from 'tsx/esm/api';

register();
await import('./storage-worker.ts');
