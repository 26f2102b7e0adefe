import { describe, expect, it } from 'vitest';
import { startTestCore } from '../../../test/support/core.js';
import { BACKEND_1, WEB_1, applyDataplane } from '../../../test/support/dataplanes.js';
import { LISTENER_TYPE_URL } from '../xds/protocol/type-urls.js';

const TIMEOUT = `type: MeshTimeout
mesh: default
name: timeout-backend
spec:
  targetRef:
    kind: MeshSubset
    tags:
      kuma.io/service: web
  to:
    - targetRef:
        kind: MeshService
        name: backend
      default:
        http:
          requestTimeout: 7s
`;

async function startCore() {
  const core = await startTestCore();
  await applyDataplane(core, WEB_1);
  await applyDataplane(core, BACKEND_1);
  const post = async (path: string, body: string) => {
    const response = await fetch(`${core.api.url}${path}`, { method: 'POST', body });
    return { status: response.status, body: (await response.json()) as any };
  };
  return { core, post };
}

describe('policy preview API', () => {
  it('answers the resources a policy would change on a proxy, and writes nothing', async () => {
    const { core, post } = await startCore();

    const { status, body } = await post('/meshes/default/dataplanes/web-1/_preview-policy', TIMEOUT);

    expect(status).toBe(200);
    expect(body).toMatchObject({ proxyId: 'default.web-1', kind: 'envoy' });
    const [before] = body.before[LISTENER_TYPE_URL];
    const [after] = body.after[LISTENER_TYPE_URL];
    expect(after.name).toBe(before.name);
    expect(JSON.stringify(after.resource)).toContain('"timeout":"7s"');
    expect(JSON.stringify(before.resource)).not.toContain('"timeout":"7s"');
    expect((await fetch(`${core.api.url}/meshes/default/meshtimeouts/timeout-backend`)).status).toBe(404);
  });

  it('previews a deletion: the proxy as it would be without the policy', async () => {
    const { core, post } = await startCore();
    const put = await fetch(`${core.api.url}/meshes/default/meshtimeouts/timeout-backend`, { method: 'PUT', body: TIMEOUT });
    expect(put.status).toBe(201);

    const { status, body } = await post('/meshes/default/dataplanes/web-1/_preview-policy?delete=true', TIMEOUT);

    expect(status).toBe(200);
    expect(JSON.stringify(body.before[LISTENER_TYPE_URL])).toContain('"timeout":"7s"');
    expect(JSON.stringify(body.after[LISTENER_TYPE_URL])).not.toContain('"timeout":"7s"');
  });

  it("answers Kuma's 400 naming the field for an invalid policy, and a clear 400 for a body that is no policy", async () => {
    const { post } = await startCore();

    const invalid = await post('/meshes/default/dataplanes/web-1/_preview-policy', TIMEOUT.replace('7s', 'soon'));
    expect(invalid.status).toBe(400);
    expect(invalid.body.invalid_parameters).toEqual([expect.objectContaining({ field: 'spec.to[0].default.http.requestTimeout' })]);

    const notPolicy = await post('/meshes/default/dataplanes/web-1/_preview-policy', 'type: Mesh\nname: other\n');
    expect(notPolicy).toMatchObject({ status: 400, body: { invalid_parameters: [{ field: 'type' }] } });
  });
});
