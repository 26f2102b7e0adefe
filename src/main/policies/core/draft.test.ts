import { types } from 'node:util';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../../shared/deep-freeze.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { ResourceDraft, type Draft } from './draft.js';

/** A value bound to something else than the resource (a proxy-bound marker, say): never drafted, copied or frozen. */
class Marker {
  constructor(readonly name: string) {}
  toJSON(): string {
    return `marker:${this.name}`;
  }
}

function cluster(): ProtoJson {
  return deepFreeze({
    name: 'web',
    connect_timeout: '5s',
    circuit_breakers: { thresholds: [{ priority: 'DEFAULT', max_connections: 10 }, { priority: 'HIGH', max_connections: 20 }] },
    health_checks: [{ timeout: '1s', tcp_health_check: {} }],
    common_lb_config: { healthy_panic_threshold: { value: 50 } },
    metadata: { filter_metadata: { 'envoy.lb': { zone: 'a' } } },
  });
}

function edited(resource: ProtoJson, edit: (draft: Draft) => void): ProtoJson {
  const draft = new ResourceDraft(resource);
  edit(draft.draft);
  return draft.finish();
}

/** Whether any part of a value is still a draft (a Proxy). */
function holdsProxy(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return types.isProxy(value) || Object.values(value).some(holdsProxy);
}

/** A result read part by part in assertions. */
interface Parts {
  [key: string | number]: Parts;
}

describe('resource drafts', () => {
  it('finish as the resource itself when an edit only reads, or writes what is there', () => {
    const resource = cluster();
    const reads = edited(resource, (draft) => {
      JSON.stringify(draft);
      void { ...draft, ...(draft.circuit_breakers as Draft) };
      Object.entries(draft.metadata as Draft);
      (draft.health_checks as Draft[]).map((check) => check.timeout);
    });
    const sameValues = edited(resource, (draft) => {
      draft.connect_timeout = '5s';
      Object.assign(draft, { ...draft });
      (draft.common_lb_config as Draft).healthy_panic_threshold = { value: 50 };
    });
    expect(reads).toBe(resource);
    expect(sameValues).toBe(resource);
  });

  it('copy only the path from the root to a changed leaf', () => {
    const resource = cluster();
    const result = edited(resource, (draft) => {
      void draft.metadata;
      (((draft.circuit_breakers as Draft).thresholds as Draft[])[1] as Draft).max_connections = 30;
    }) as unknown as Parts;
    const base = resource as unknown as Parts;

    expect(result).not.toBe(resource);
    expect(result.circuit_breakers).not.toBe(base.circuit_breakers);
    expect(result.circuit_breakers.thresholds).not.toBe(base.circuit_breakers.thresholds);
    expect(result.circuit_breakers.thresholds[1]).toEqual({ priority: 'HIGH', max_connections: 30 });
    expect(result.circuit_breakers.thresholds[0]).toBe(base.circuit_breakers.thresholds[0]);
    for (const field of ['health_checks', 'common_lb_config', 'metadata']) expect(result[field]).toBe(base[field]);
    expect(Object.isFrozen(result) && Object.isFrozen(result.circuit_breakers.thresholds[1])).toBe(true);
    expect(resource).toEqual(cluster());
  });

  it('give the same JSON, keys in the same order, as the edit on a plain copy', () => {
    const edits: ((draft: Draft) => void)[] = [
      (draft) => {
        draft.outlier_detection = { interval: '1s' };
        draft.name = 'api';
      },
      (draft) => {
        delete draft.connect_timeout;
        draft.connect_timeout = '1s';
        delete (draft.common_lb_config as Draft).healthy_panic_threshold;
      },
      // MeshHealthCheck's configureCluster: a new cluster spread from the draft, assigned over it.
      (draft) => {
        const checks = draft.health_checks as Draft[];
        const common = { ...(draft.common_lb_config as Draft), zone_aware_lb_config: { fail_traffic_on_panic: true } };
        Object.assign(draft, { ...draft, common_lb_config: common, health_checks: [...checks, { timeout: '2s', http_health_check: { path: '/' } }] });
      },
    ];
    for (const edit of edits) {
      const plain = structuredClone(cluster()) as Draft;
      edit(plain);
      expect(JSON.stringify(edited(cluster(), edit))).toBe(JSON.stringify(plain));
    }
  });

  it('share the parts a spread carried over, and leave no draft in the result', () => {
    const resource = cluster();
    const base = resource as unknown as Parts;
    const result = edited(resource, (draft) => {
      const checks = draft.health_checks as Draft[];
      Object.assign(draft, { ...draft, health_checks: [...checks, { ...checks[0], timeout: '2s' }] });
    }) as unknown as Parts;

    expect(result.health_checks[0]).toBe(base.health_checks[0]);
    expect(result.health_checks[1]!.tcp_health_check).toBe(base.health_checks[0]!.tcp_health_check);
    expect(result.circuit_breakers).toBe(base.circuit_breakers);
    expect(holdsProxy(result)).toBe(false);
    expect(Object.isFrozen(result.health_checks[1])).toBe(true);
  });

  it('edit arrays with their methods: push, splice, sort, length, filter and map', () => {
    const resource = deepFreeze({ items: [{ n: 3 }, { n: 1 }, { n: 2 }], tags: ['b', 'a', 'c'] });
    const base = resource as unknown as { items: { n: number }[]; tags: string[] };
    const result = edited(resource, (draft) => {
      const items = draft.items as Draft[];
      items.sort((a, b) => (a.n as number) - (b.n as number));
      items.push({ n: 4 });
      items.splice(1, 1);
      items[0]!.n = 0;
      const tags = draft.tags as string[];
      tags.length = 2;
      draft.copies = items.filter((item) => (item.n as number) > 2).map((item) => item);
    }) as unknown as { items: { n: number }[]; tags: string[]; copies: { n: number }[] };

    expect(result).toEqual({ items: [{ n: 0 }, { n: 3 }, { n: 4 }], tags: ['b', 'a'], copies: [{ n: 3 }, { n: 4 }] });
    expect(result.items[1]).toBe(base.items[0]);
    expect(result.copies[0]).toBe(base.items[0]);
    expect(result.items[0]).not.toBe(base.items[1]);
    expect(Array.isArray(result.items) && Object.isFrozen(result.items)).toBe(true);
    expect(base).toEqual({ items: [{ n: 3 }, { n: 1 }, { n: 2 }], tags: ['b', 'a', 'c'] });
  });

  it('keep values that are not plain data (class instances, bytes) by reference, neither drafted nor frozen', () => {
    const marker = new Marker('tags');
    const bytes = new Uint8Array([1, 2, 3]);
    const resource = Object.freeze({ header: Object.freeze({ value: marker }), payload: bytes });
    const added = new Marker('zone');
    const result = edited(resource, (draft) => {
      expect((draft.header as Draft).value).toBe(marker);
      expect(draft.payload).toBe(bytes);
      draft.zone = { value: added, bytes };
    }) as unknown as Parts;

    expect(result.header).toBe(resource.header);
    expect(result.payload).toBe(bytes);
    expect(result.zone!.value).toBe(added);
    expect(result.zone!.bytes).toBe(bytes);
    expect(Object.isFrozen(added) || Object.isFrozen(marker)).toBe(false);
  });

  it('take Object.defineProperty as a write', () => {
    const result = edited(cluster(), (draft) => {
      Object.defineProperty(draft.common_lb_config, 'update_merge_window', { value: '1s', enumerable: true, writable: true, configurable: true });
    });
    expect(result.common_lb_config).toEqual({ healthy_panic_threshold: { value: 50 }, update_merge_window: '1s' });
  });
});
