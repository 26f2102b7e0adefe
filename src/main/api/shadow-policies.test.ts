// `kuma.io/effect: shadow` through the API of a real core: the policy is stored and changes no
// proxy's configuration; `_config?shadow=true`, `_rules?shadow=true` and the preview show what it would do.
import { describe, expect, it } from 'vitest';
import { startTestCore } from '../../../test/support/core.js';
import { BACKEND_1, WEB_1, applyDataplane } from '../../../test/support/dataplanes.js';
import { eventually } from '../../../test/support/eventually.js';
import { LISTENER_TYPE_URL } from '../xds/protocol/type-urls.js';

// Named to sort before the mesh's mesh-timeout-all-default, so that it merges last and wins (Kuma's SortByTargetRef).
const timeout = (labels: string) => `type: MeshTimeout
mesh: default
name: backend-timeout
${labels}spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: backend
      default:
        http:
          requestTimeout: 7s
`;
const SHADOW = timeout('labels:\n  kuma.io/effect: shadow\n');
const LIVE = timeout('');

async function startCore() {
  const core = await startTestCore();
  await applyDataplane(core, WEB_1);
  await applyDataplane(core, BACKEND_1);
  const send = async (method: 'GET' | 'PUT' | 'POST', path: string, body?: string) => {
    const response = await fetch(`${core.api.url}${path}`, { method, ...(body !== undefined && { body }) });
    return { status: response.status, text: await response.text() };
  };
  const json = async (path: string) => JSON.parse((await send('GET', path)).text);
  return { core, send, json };
}

const config = '/meshes/default/dataplanes/web-1/_config';
const has7s = (xds: unknown) => JSON.stringify(xds).includes('"timeout":"7s"');

describe('shadow policies', () => {
  it('are stored, leave the configuration byte for byte as it was, and show what they would do with shadow=true', async () => {
    const { send, json } = await startCore();
    const before = (await send('GET', config)).text;
    expect(has7s(JSON.parse(before).xds)).toBe(false);

    expect((await send('PUT', '/meshes/default/meshtimeouts/backend-timeout', SHADOW)).status).toBe(201);
    // Once the mesh's view has the policy (shadow=true applies it), the configuration is still the one before.
    const shadow = await eventually(async () => {
      const body = await json(`${config}?shadow=true&include=diff`);
      expect(has7s(body.xds)).toBe(true);
      return body;
    });
    expect((await send('GET', config)).text).toBe(before);
    expect(shadow.diff).toContainEqual(expect.objectContaining({ op: 'add', value: '7s' }));
    expect((await json(`${config}?include=diff`)).diff).toEqual([]);

    // `_rules` leaves it out as Kuma does; with shadow=true it is there, labelled.
    const origins = (body: any) => body.rules.filter((rule: any) => rule.type === 'MeshTimeout').flatMap((rule: any) => rule.toRules.flatMap((each: any) => each.origin));
    expect(origins(await json('/meshes/default/dataplanes/web-1/_rules')).map((origin: any) => origin.name)).not.toContain('backend-timeout');
    expect(origins(await json('/meshes/default/dataplanes/web-1/_rules?shadow=true'))).toContainEqual(
      expect.objectContaining({ name: 'backend-timeout', labels: expect.objectContaining({ 'kuma.io/effect': 'shadow' }) }),
    );
    // What it would select if it were live.
    expect((await json('/meshes/default/meshtimeouts/backend-timeout/_resources/dataplanes')).items.map((item: any) => item.name)).toEqual(['backend-1', 'web-1']);

    // Made live, the same policy changes the configuration: the comparison above can tell.
    expect((await send('PUT', '/meshes/default/meshtimeouts/backend-timeout', LIVE)).status).toBe(200);
    await eventually(async () => expect(has7s((await json(config)).xds)).toBe(true));
  });

  it("previews a shadow policy as if it were live, and says it is shadow", async () => {
    const { send } = await startCore();
    const preview = JSON.parse((await send('POST', '/meshes/default/dataplanes/web-1/_preview-policy', SHADOW)).text);
    expect(preview.shadow).toBe(true);
    expect(has7s(preview.after[LISTENER_TYPE_URL])).toBe(true);
    expect(JSON.parse((await send('POST', '/meshes/default/dataplanes/web-1/_preview-policy', LIVE)).text).shadow).toBe(false);
  });

  it("refuses a shadow or include value Kuma refuses, on _rules too", async () => {
    const { send } = await startCore();
    for (const path of [`${config}?shadow=yes`, '/meshes/default/dataplanes/web-1/_rules?shadow=yes']) {
      const answer = await send('GET', path);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text).detail).toBe("bad request: unsupported value for query parameter 'shadow'");
    }
    expect(JSON.parse((await send('GET', `${config}?include=diff,yaml`)).text).detail).toBe("bad request: unsupported value for query parameter 'include'");
  });
});
