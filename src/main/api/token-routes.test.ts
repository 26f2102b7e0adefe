import { describe, expect, it } from 'vitest';
import { startTestCore } from '../../../test/support/core.js';

describe('token routes', () => {
  it('issues a token once, lists the Dataplane without it, and revokes it, once', async () => {
    const core = await startTestCore();
    const url = `${core.api.url}/meshes/default/dataplanes/backend-1/token`;

    const issued = await fetch(url, { method: 'POST' });
    expect(issued.status).toBe(201);
    const body = (await issued.json()) as Record<string, unknown>;
    expect(body).toEqual({ mesh: 'default', name: 'backend-1', issuedAt: expect.any(String), token: expect.any(String), metadataKey: 'meshdesk.token' });

    const listed = await (await fetch(`${core.api.url}/dataplane-tokens`)).text();
    expect(JSON.parse(listed)).toEqual({ total: 1, items: [{ mesh: 'default', name: 'backend-1', issuedAt: body.issuedAt, revoked: false }], next: null });
    expect(listed).not.toContain(body.token as string);

    expect((await fetch(url, { method: 'DELETE' })).status).toBe(200);
    const again = await fetch(url, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ details: 'the token of Dataplane "backend-1" in mesh "default" is revoked already' });
  });

  it('refuses a token in a mesh that does not exist', async () => {
    const core = await startTestCore();
    const response = await fetch(`${core.api.url}/meshes/nope/dataplanes/backend-1/token`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect(core.xds.dataplaneTokens.list()).toEqual([]);
  });
});
