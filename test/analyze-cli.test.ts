import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runMeshdesk } from './support/cli-process.js';
import { httpDataplane } from './support/dataplanes.js';
import { startHeadless } from './support/headless-process.js';
import { tempDir } from './support/temp-dir.js';

/** Each case starts real processes: generous on a busy machine. */
const PROCESS_TIMEOUT = 120_000;


const SLOW_TIMEOUT = `type: MeshTimeout
name: slow-timeout
mesh: default
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: Mesh}
      default: {http: {requestTimeout: 60s}}
`;

describe('meshdesk analyze against a running meshdesk', { timeout: PROCESS_TIMEOUT }, () => {
  it('prints the findings of the mesh, or of files before they are applied, and exits 3 on an error finding', async () => {
    const dataDir = tempDir();
    const headless = await startHeadless(['--data-dir', dataDir, '--api-port', '0', '--ads-port', '0']);
    onTestFinished(async () => {
      await headless.stop();
    });
    for (const each of [httpDataplane('default', 'web-1', 'web', 18080, 'backend'), httpDataplane('default', 'backend-1', 'backend', 18081)]) {
      expect((await fetch(`${headless.apiUrl}/meshes/default/dataplanes/${each.name}`, { method: 'PUT', body: JSON.stringify(each) })).status).toBe(201);
    }
    expect(await runMeshdesk(['analyze', '--data-dir', dataDir])).toMatchObject({ code: 0, stdout: 'mesh default: no findings\n', stderr: '' });

    const file = join(tempDir(), 'slow-timeout.yaml');
    writeFileSync(file, SLOW_TIMEOUT);
    const before = await runMeshdesk(['analyze', '--data-dir', dataDir, file]);
    expect(before.code).toBe(0);
    expect(before.stdout).toContain('warning MD0002 MeshTimeout slow-timeout\n  MeshTimeout slow-timeout selects 2 proxies and changes nothing');
    expect(before.stdout).toContain('mesh default: 0 errors, 1 warning, 0 info');
    // Analyzed, not applied.
    expect((await fetch(`${headless.apiUrl}/meshes/default/meshtimeouts/slow-timeout`)).status).toBe(404);

    const mtls = 'type: Mesh\nname: default\nmtls: {enabledBackend: ca-1, backends: [{name: ca-1, type: builtin}]}\n';
    expect((await fetch(`${headless.apiUrl}/meshes/default`, { method: 'PUT', body: mtls })).status).toBe(200);
    // The headless core's cache expiration (1 s by default) passes before the mesh's view has mTLS on.
    await expect
      .poll(async () => (await runMeshdesk(['analyze', '--data-dir', dataDir, '--json'])).code, { timeout: 30_000 })
      .toBe(3);
    const json = await runMeshdesk(['analyze', '--data-dir', dataDir, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ mesh: 'default', counts: { error: 1 }, findings: [{ code: 'MD0010', location: { name: 'web-1' } }] });

    const wrong = await runMeshdesk(['analyze', '--data-dir', dataDir, '--mesh', 'nowhere']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('nowhere');
  });
});
