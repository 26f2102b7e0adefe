import type { DemoRunner } from '../demo/demo-runner.js';
import { DemoConflictError } from '../demo/demo-runner.js';
import { ApiError } from './api-error.js';
import type { Route } from './router.js';

export interface DemoDependencies {
  demo: Pick<DemoRunner, 'status' | 'start' | 'stop'>;
}

/**
 * meshdesk's own: `GET /demo` (its state, the gRPC client's calls), `POST /demo` starts the demo
 * mesh (a no-op while it runs), `DELETE /demo` stops it and removes what it wrote. The same demo
 * as `npm run demo`.
 */
export function demoRoutes({ demo }: DemoDependencies): Route[] {
  return [
    { method: 'GET', path: '/demo', handler: () => ({ json: demo.status() }) },
    {
      method: 'POST',
      path: '/demo',
      handler: async () => {
        try {
          return { json: await demo.start() };
        } catch (error) {
          if (error instanceof DemoConflictError) throw new ApiError(409, 'Could not start the demo mesh', error.message);
          throw new ApiError(500, 'Could not start the demo mesh', error instanceof Error ? error.message : String(error));
        }
      },
    },
    { method: 'DELETE', path: '/demo', handler: async () => ({ json: await demo.stop() }) },
  ];
}
