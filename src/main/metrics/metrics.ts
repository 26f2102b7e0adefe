import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Every metric meshdesk exposes, with Kuma's names, in one registry per core
 * (never prom-client's global one, so that several cores can run in one test process).
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    storeCache: new Counter({
      name: 'store_cache',
      help: 'Cached resource manager lookups by operation (get|list), resource type and result (hit|miss|hit-wait)',
      labelNames: ['operation', 'resource_type', 'result'] as const,
      registers: [registry],
    }),
    meshCache: new Counter({
      name: 'mesh_cache',
      help: 'MeshContext cache lookups by result (hit|miss|hit-wait)',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    xdsGeneration: new Histogram({
      name: 'xds_generation',
      help: 'Time of one sync tracker tick in seconds, by result (skip|generated|changed|dataplane-not-found|error)',
      labelNames: ['result'] as const,
      buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
      registers: [registry],
    }),
    xdsDelivery: new Histogram({
      name: 'xds_delivery',
      help: 'Time from a snapshot being set to its ACK by the proxy, in seconds, by type',
      labelNames: ['type'] as const,
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers: [registry],
    }),
    snapshotHistoryLost: new Counter({
      name: 'snapshot_history_lost',
      help: 'Published snapshots the config history could not record (config was served), by kind (disk-full|locked|corrupt|other)',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    eventStreamDropped: new Counter({
      name: 'event_stream_dropped',
      help: 'Event stream (/events) subscribers dropped because they stopped reading and fell too far behind',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
