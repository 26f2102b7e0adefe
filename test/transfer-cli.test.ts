import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runMeshdesk } from './support/cli-process.js';
import { startHeadless } from './support/headless-process.js';
import { tempDir } from './support/temp-dir.js';

/** Each case starts real processes: generous on a busy machine. */
const PROCESS_TIMEOUT = 120_000;

async function runningMeshdesk(dataDir: string) {
  const headless = await startHeadless(['--data-dir', dataDir, '--api-port', '0', '--ads-port', '0']);
  onTestFinished(async () => {
    await headless.stop();
  });
  return headless;
}

const BACKEND = {
  type: 'Dataplane',
  mesh: 'payments',
  name: 'backend-1',
  labels: { team: 'payments' },
  networking: { address: '127.0.0.1', inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'backend' } }] },
};

describe('meshdesk export / import against a running meshdesk', { timeout: PROCESS_TIMEOUT }, () => {
  it('exports to a file and imports it into another running meshdesk; --overwrite and --dry-run do what they say', async () => {
    const sourceDir = tempDir();
    const source = await runningMeshdesk(sourceDir);
    expect((await fetch(`${source.apiUrl}/meshes/payments`, { method: 'PUT', body: 'type: Mesh\nname: payments\nskipCreatingInitialPolicies: ["*"]\n' })).status).toBe(201);
    expect((await fetch(`${source.apiUrl}/meshes/payments/dataplanes/backend-1`, { method: 'PUT', body: JSON.stringify(BACKEND) })).status).toBe(201);

    const out = join(tempDir(), 'export.yaml');
    const exported = await runMeshdesk(['export', '--data-dir', sourceDir, '--out', out]);
    expect(exported).toMatchObject({ code: 0, stdout: '' });
    expect(exported.stderr).toContain(`exported 7 resources to ${out}`);
    const text = readFileSync(out, 'utf8');
    expect(text).toMatch(/^---\ntype: Mesh\nname: default\n[\s\S]*---\ntype: Mesh\nname: payments\n[\s\S]*---\ntype: Dataplane\nmesh: payments\nname: backend-1\n/);
    // Written whole through a temporary file, which is gone.
    expect(readdirSync(join(out, '..'))).toEqual(['export.yaml']);

    const targetDir = tempDir();
    const target = await runningMeshdesk(targetDir);
    const dryRun = await runMeshdesk(['import', '--data-dir', targetDir, '--dry-run', out]);
    expect(dryRun).toMatchObject({ code: 0, stderr: '' });
    expect(dryRun.stdout).toBe(
      'resource type="Mesh" mesh="" name="default" Unchanged\n' +
        'resource type="Mesh" mesh="" name="payments" Created\n' +
        'resource type="Dataplane" mesh="payments" name="backend-1" Created\n' +
        // The default mesh's initial policies, there on both sides.
        'resource type="MeshTimeout" mesh="default" name="mesh-gateways-timeout-all-default" Unchanged\n' +
        'resource type="MeshTimeout" mesh="default" name="mesh-timeout-all-default" Unchanged\n' +
        'resource type="MeshCircuitBreaker" mesh="default" name="mesh-circuit-breaker-all-default" Unchanged\n' +
        'resource type="MeshRetry" mesh="default" name="mesh-retry-all-default" Unchanged\n' +
        'dry run: nothing was written\n',
    );
    expect((await fetch(`${target.apiUrl}/meshes/payments`)).status).toBe(404);

    const imported = await runMeshdesk(['import', '--data-dir', targetDir, out]);
    expect(imported).toMatchObject({ code: 0, stderr: '' });
    expect(imported.stdout).toContain('resource type="Dataplane" mesh="payments" name="backend-1" Created');
    expect(await (await fetch(`${target.apiUrl}/meshes/payments/dataplanes/backend-1`)).json()).toMatchObject(BACKEND);

    // The same names with other content: refused without --overwrite, nothing written.
    writeFileSync(out, text.replace('team: payments', 'team: search'));
    const refused = await runMeshdesk(['import', '--data-dir', targetDir, out]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Resources already exist');
    expect(refused.stderr).toContain('resource[2]: Dataplane "backend-1" in mesh "payments" exists (version 1) with other content');
    const overwritten = await runMeshdesk(['import', '--data-dir', targetDir, '--overwrite', out]);
    expect(overwritten).toMatchObject({ code: 0, stderr: '' });
    expect(overwritten.stdout).toContain('resource type="Dataplane" mesh="payments" name="backend-1" Updated');
    expect(await (await fetch(`${target.apiUrl}/meshes/payments/dataplanes/backend-1`)).json()).toMatchObject({ labels: { team: 'search' }, version: 2 });
  });

  it('names the invalid document and writes nothing', async () => {
    const dataDir = tempDir();
    const running = await runningMeshdesk(dataDir);
    const file = join(tempDir(), 'bad.yaml');
    writeFileSync(file, `type: Mesh\nname: staging\n---\n${JSON.stringify({ ...BACKEND, mesh: 'staging', networking: { address: '::' } })}\n`);

    const { code, stderr } = await runMeshdesk(['import', '--data-dir', dataDir, file]);

    expect(code).toBe(1);
    expect(stderr).toContain('the import is not valid; nothing was written');
    expect(stderr).toContain('resource[1].networking.address: Dataplane "backend-1" in mesh "staging": must not be 0.0.0.0 or ::');
    expect((await fetch(`${running.apiUrl}/meshes/staging`)).status).toBe(404);
  });

  it('refuses when no meshdesk runs on the data directory, without creating anything there', async () => {
    const dataDir = tempDir();
    const out = join(tempDir(), 'export.yaml');

    const exported = await runMeshdesk(['export', '--data-dir', dataDir, '--out', out]);
    const imported = await runMeshdesk(['import', '--data-dir', dataDir, '-']);

    for (const run of [exported, imported]) {
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`no meshdesk is running on data directory ${dataDir}`);
    }
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
