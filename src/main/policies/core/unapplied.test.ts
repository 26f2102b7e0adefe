import { describe, expect, it } from 'vitest';
import type { MeshResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { XDS_TYPE_URLS } from '../../xds/protocol/type-urls.js';
import { EnvoyResources } from './envoy-resources.js';
import type { UnappliedField } from './plugin.js';
import type { PolicyResource } from './policy.js';
import { emptyProxyRules } from './rules.js';
import { reportUnapplied } from './unapplied.js';

const TIME = '2026-01-01T00:00:00.000Z';
const meta = (mesh: string, name: string) => ({ mesh, name, version: 1, creationTime: TIME, modificationTime: TIME, labels: {} });

describe('reportUnapplied', () => {
  it('names the item whose default set the field, of the items merged into the rule, else the last one', () => {
    const policy = (name: string, conf: unknown): PolicyResource => ({
      type: 'MeshTimeout',
      meta: meta('default', name),
      spec: { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: conf }] },
    });
    const mesh: MeshResource = { type: 'Mesh', meta: meta('', 'default'), spec: {} };
    const context = buildMeshContext(mesh, [], { policies: [policy('sets-it', { http: { requestTimeout: '1s' } }), policy('later', { idleTimeout: '1m' })] });
    const reported: UnappliedField[] = [];
    const input = {
      proxy: undefined as never,
      context,
      rules: emptyProxyRules(),
      rulesOf: () => emptyProxyRules(),
      resources: new EnvoyResources(Object.fromEntries(XDS_TYPE_URLS.map((typeUrl) => [typeUrl, []])) as never, context),
      unapplied: (field: UnappliedField) => reported.push(field),
    };
    const origins = ['sets-it', 'later'].map((name) => ({ type: 'MeshTimeout', mesh: 'default', name, item: 'spec.to[0]' }) as const);

    reportUnapplied(input, origins, 'http.requestTimeout', 'why');
    reportUnapplied(input, origins, 'http.streamIdleTimeout', 'why');

    expect(reported).toEqual([
      { policy: { type: 'MeshTimeout', name: 'sets-it' }, field: 'spec.to[0].default.http.requestTimeout', reason: 'why' },
      { policy: { type: 'MeshTimeout', name: 'later' }, field: 'spec.to[0].default.http.streamIdleTimeout', reason: 'why' },
    ]);
  });
});
