import { describe, expect, it } from 'vitest';
import { dataplaneResource, meshResource, policyResource } from '../../policies/core/testing/resources.js';
import { buildMeshContext } from './build-mesh-context.js';
import { canonical } from './carried-memo.js';
import { contextView, underlyingContext } from './context-view.js';
import { policiesOf } from './mesh-context.js';

const timeout = policyResource('MeshTimeout', 'all', { to: [{ targetRef: { kind: 'Mesh' }, default: { connectionTimeout: '3s' } }] });
const retry = policyResource('MeshRetry', 'all', { to: [{ targetRef: { kind: 'Mesh' }, default: { tcp: { maxConnectAttempt: 2 } } }] });
const context = buildMeshContext(meshResource(), [dataplaneResource('web-1', [{ port: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }])], {
  policies: [timeout, retry],
});

describe('a view of a mesh context', () => {
  it('shows the parts a reader declares, as the context has them', () => {
    const view = contextView(context, { parts: ['mesh', 'protocols'], policyTypes: ['MeshTimeout'] });
    expect(view.mesh).toBe(context.mesh);
    expect(view.protocolByService.get('web')).toBe('http');
    expect(policiesOf(view, 'MeshTimeout')).toEqual([timeout]);
  });

  it('refuses every other read, naming what was read and what was declared', () => {
    const view = contextView(context, { parts: ['mesh'], policyTypes: ['MeshTimeout'] });
    expect(() => view.endpointsByService).toThrow("reads the mesh context's endpointsByService, which it does not declare (it declares mesh, MeshTimeout policies)");
    expect(() => view.dataplanesByName).toThrow('dataplanesByName');
    expect(() => view.policies).toThrow('policies');
    expect(() => view.hash).toThrow('hash');
    expect(() => policiesOf(view, 'MeshRetry')).toThrow("reads the mesh context's MeshRetry policies");
    expect(() => [...view.policiesByType.values()]).toThrow('policies of every type');
    expect(policiesOf(contextView(context, { parts: ['policies'] }), 'MeshRetry')).toEqual([retry]);
  });

  it('is one object per context and declaration, and carries what its context carries', () => {
    const view = contextView(context, { parts: ['mesh', 'protocols'] });
    expect(contextView(context, { parts: ['protocols', 'mesh'] })).toBe(view);
    expect(contextView(context, { parts: ['mesh'] })).not.toBe(view);
    expect(underlyingContext(view)).toBe(context);
    expect(contextView(view, { parts: ['mesh'] })).toBe(contextView(context, { parts: ['mesh'] }));
    // Memos carried from context to context are the context's, whichever view asks.
    const value = { content: 1 };
    expect(canonical(view, 'context-view-test', value)).toBe(value);
    expect(canonical(context, 'context-view-test', { content: 1 })).toBe(value);
  });
});
