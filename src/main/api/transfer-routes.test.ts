import { describe, expect, it } from 'vitest';
import { startTestCore } from '../../../test/support/core.js';
import { WEB_1_INBOUND_YAML } from '../../../test/support/dataplanes.js';
import type { ApiErrorBody, ImportReport } from '../../shared/api-types.js';

describe('transfer routes', () => {
  it('GET /export answers the store as YAML documents; POST /import?dryRun=true previews, POST /import writes', async () => {
    const source = await startTestCore();
    expect((await fetch(`${source.api.url}/meshes/default/dataplanes/web-1`, { method: 'PUT', body: WEB_1_INBOUND_YAML })).status).toBe(201);

    const exported = await fetch(`${source.api.url}/export`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('application/yaml');
    const text = await exported.text();
    expect(text).toMatch(/^---\ntype: Mesh\nname: default\n[\s\S]*---\ntype: Dataplane\nmesh: default\nname: web-1\n/);

    const target = await startTestCore();
    const preview = await fetch(`${target.api.url}/import?dryRun=true`, { method: 'POST', body: text });
    expect(preview.status).toBe(200);
    expect(await preview.json()).toEqual({
      dryRun: true,
      resources: [
        { type: 'Mesh', mesh: '', name: 'default', action: 'Unchanged' },
        { type: 'Dataplane', mesh: 'default', name: 'web-1', action: 'Created' },
        // The default mesh's initial policies, there on both sides.
        { type: 'MeshTimeout', mesh: 'default', name: 'mesh-gateways-timeout-all-default', action: 'Unchanged' },
        { type: 'MeshTimeout', mesh: 'default', name: 'mesh-timeout-all-default', action: 'Unchanged' },
        { type: 'MeshCircuitBreaker', mesh: 'default', name: 'mesh-circuit-breaker-all-default', action: 'Unchanged' },
        { type: 'MeshRetry', mesh: 'default', name: 'mesh-retry-all-default', action: 'Unchanged' },
      ],
    });
    expect((await fetch(`${target.api.url}/meshes/default/dataplanes/web-1`)).status).toBe(404);

    const imported = await fetch(`${target.api.url}/import`, { method: 'POST', body: text });
    expect(imported.status).toBe(200);
    expect(((await imported.json()) as ImportReport).dryRun).toBe(false);
    expect((await fetch(`${target.api.url}/meshes/default/dataplanes/web-1`)).status).toBe(200);
  });

  it('answers 409 naming each existing resource the import would change, 200 with overwrite=true', async () => {
    const core = await startTestCore();
    await fetch(`${core.api.url}/meshes/default/dataplanes/web-1`, { method: 'PUT', body: WEB_1_INBOUND_YAML });
    const changed = `${WEB_1_INBOUND_YAML}labels:\n  team: web\n`;

    const refused = await fetch(`${core.api.url}/import`, { method: 'POST', body: changed });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      title: 'Resources already exist',
      causes: [{ field: 'resource[0]', message: 'Dataplane "web-1" in mesh "default" exists (version 1) with other content' }],
    });

    const overwritten = await fetch(`${core.api.url}/import?overwrite=true`, { method: 'POST', body: changed });
    expect(overwritten.status).toBe(200);
    expect(((await overwritten.json()) as ImportReport).resources).toEqual([{ type: 'Dataplane', mesh: 'default', name: 'web-1', action: 'Updated' }]);
  });

  it('answers 400 for an invalid document and for a flag that is not true or false', async () => {
    const core = await startTestCore();

    const invalid = await fetch(`${core.api.url}/import`, { method: 'POST', body: 'type: Mesh\nname: Bad_Name\n' });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as ApiErrorBody).causes).toEqual([{ field: 'resource[0].name', message: expect.stringMatching(/^Mesh "Bad_Name": /) }]);

    const flag = await fetch(`${core.api.url}/import?overwrite=yes`, { method: 'POST', body: WEB_1_INBOUND_YAML });
    expect(flag.status).toBe(400);
    expect(((await flag.json()) as ApiErrorBody).causes).toEqual([{ field: 'overwrite', message: 'must be true or false' }]);
    expect((await fetch(`${core.api.url}/export?includeProxyRegistered=1`)).status).toBe(400);
  });
});
