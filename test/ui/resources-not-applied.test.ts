import { describe, expect, it } from 'vitest';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

// Chromium and a core on a shared 2-core machine: a bound for hung tests, not a timing assertion.
const ROOM = 90_000;

const WEB_1 = `type: Dataplane
mesh: default
name: web-1
networking:
  address: 127.0.0.1
  inbound:
    - port: 18080
      serviceProbe:
        interval: 10s
      tags:
        kuma.io/service: web
  transparentProxying:
    redirectPortInbound: 15006
`;

describe('Resources view: Kuma fields meshdesk does not act on', () => {
  it('names them above the editor of a stored resource, and shows nothing for one without them', async () => {
    const core = await ui.core();
    expect((await fetch(`${core.api.url}/meshes/default/dataplanes/web-1`, { method: 'PUT', body: WEB_1 })).status).toBe(201);

    const { page } = await ui.open(core, '#/resources/dataplane/default/web-1');
    const notice = page.getByTestId('not-applied');
    await notice.waitFor();
    expect(await notice.innerText()).toBe(
      'Stored, not applied by meshdesk: networking.transparentProxying, networking.inbound[0].serviceProbe',
    );

    await page.locator('[data-resource="Mesh::default"]').click();
    await page.getByTestId('editor-title').getByText('Mesh default').waitFor();
    expect(await notice.count()).toBe(0);
  }, ROOM);
});
