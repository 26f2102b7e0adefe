import { describe, expect, it } from 'vitest';
import { startTestCore } from '../support/core.js';

describe('identity certificate lifetime', () => {
  it('a Mesh whose dpCert.rotation.expiration is 1s is refused at PUT, naming the field, and the stored Mesh stays as it was', async () => {
    const core = await startTestCore();
    const before = await core.manager.get('Mesh', { mesh: '', name: 'default' });
    const mtls = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin', dpCert: { rotation: { expiration: '1s' } } }] };

    const response = await fetch(`${core.api.url}/meshes/default`, { method: 'PUT', body: JSON.stringify({ type: 'Mesh', name: 'default', mtls }) });

    expect(response.status).toBe(400);
    expect(((await response.json()) as { causes: unknown }).causes).toEqual([
      { field: 'mtls.backends[0].dpCert.rotation.expiration', message: expect.stringMatching(/^must be at least 1m, got "1s"/) },
    ]);
    expect(await core.manager.get('Mesh', { mesh: '', name: 'default' })).toEqual(before);
  });
});
