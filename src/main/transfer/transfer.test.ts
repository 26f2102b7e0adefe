import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { computedDataplaneLabels } from '../../../test/support/computed-labels.js';
import { startTestCore } from '../../../test/support/core.js';
import { KUMA_CASES_DIR, kumaCasesPresent } from '../../../test/support/kuma-cases.js';
import type { ResourceInput } from '../../shared/resources.js';
import type { Core } from '../core.js';
import { validateResource } from '../resources/validate.js';
import { ValidationError } from '../resources/validation-error.js';
import { ResourceAlreadyExistsError } from '../store/errors.js';
import { ORIGIN_LABEL, PROXY_ORIGIN } from '../xds/callbacks/dataplane-lifecycle.js';
import { exportResources } from './export.js';
import { ExistingResourcesError, formatImported, importResources, readImportText, type ImportOptions } from './import.js';

/** What `kumactl get … -o yaml` prints for an API list body: the same JSON as YAML, keys sorted. */
function kumactlGetYaml(goldenFile: string): string {
  return stringify(JSON.parse(readFileSync(join(KUMA_CASES_DIR, 'api', goldenFile), 'utf8')), { sortMapEntries: true });
}

/**
 * A Dataplane as a user writes it, read the way the API reads a PUT body. Dataplanes of one mesh need
 * ports of their own: the manager refuses two inbounds on one address and port.
 */
function dataplane(mesh: string, name: string, labels: Record<string, string> = { team: 'payments' }, port = 18080): ResourceInput<'Dataplane'> {
  return validateResource(
    {
      type: 'Dataplane',
      mesh,
      name,
      labels,
      probes: { port: 9000, endpoints: [{ inboundPort: port, inboundPath: '/healthz', path: '/probe' }] },
      networking: {
        address: '127.0.0.1',
        admin: { port: 9950 },
        inbound: [{ name: 'main', port, servicePort: 8080, serviceAddress: '127.0.0.2', tags: { 'kuma.io/service': name, 'kuma.io/protocol': 'http' } }],
        outbound: [{ port: 20001, address: '127.0.0.3', tags: { 'kuma.io/service': 'db' } }],
      },
    },
    { type: 'Dataplane' },
  );
}

async function seed(core: Core): Promise<void> {
  // Fields meshdesk stores but does not act on (mTLS, routing, probes, an inbound's name) travel too.
  await core.manager.create(
    validateResource({
      type: 'Mesh',
      name: 'payments',
      labels: { env: 'dev' },
      mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] },
      routing: { zoneEgress: true },
      skipCreatingInitialPolicies: ['MeshTimeout', 'MeshRetry'],
    }),
  );
  await core.manager.create(
    validateResource({
      type: 'MeshTimeout',
      mesh: 'payments',
      name: 'payments-timeouts',
      spec: { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: { idleTimeout: '20s' } }] },
    }),
  );
  await core.manager.create(dataplane('payments', 'billing-1'));
  await core.manager.create(dataplane('default', 'web-1', {}));
  await core.manager.create(dataplane('default', 'registered-1', { [ORIGIN_LABEL]: PROXY_ORIGIN }, 18081));
}

/** The documents' `type/mesh/name`, in order. */
function keysOf(text: string): string[] {
  return parseAllDocuments(text).map((document) => {
    const { type, mesh, name } = document.toJS() as Record<string, string>;
    return `${type}/${mesh ?? ''}/${name}`;
  });
}

/** The API's import, read and written in one step: a text that does not read rejects, as a refused write does. */
const importText = async (manager: Core['manager'], text: string, options?: ImportOptions) => importResources(manager, readImportText(text), options);

const withoutTimes = (text: string) => text.replace(/^(creationTime|modificationTime): .*$/gm, '$1: <time>');

describe('export', () => {
  it('writes Meshes first, then each mesh\'s Dataplanes and policies, in the shape kumactl apply reads, without meshdesk\'s version', async () => {
    const core = await startTestCore();
    await seed(core);

    const { text, exported, skippedProxyRegistered } = await exportResources(core.manager);

    expect(keysOf(text)).toEqual([
      'Mesh//default',
      'Mesh//payments',
      'Dataplane/default/web-1',
      'Dataplane/payments/billing-1',
      'MeshTimeout/default/mesh-gateways-timeout-all-default',
      'MeshTimeout/default/mesh-timeout-all-default',
      'MeshTimeout/payments/payments-timeouts',
      'MeshCircuitBreaker/default/mesh-circuit-breaker-all-default',
      'MeshCircuitBreaker/payments/mesh-circuit-breaker-all-payments',
      'MeshRetry/default/mesh-retry-all-default',
    ]);
    expect({ exported, skippedProxyRegistered }).toEqual({ exported: 10, skippedProxyRegistered: 1 });
    // kumactl splits at lines starting with `---` and parses each part alone: every part is one resource.
    expect(text.startsWith('---\n')).toBe(true);
    const documents = parseAllDocuments(text).map((document) => document.toJS() as Record<string, unknown>);
    expect(documents[3]).toEqual({
      type: 'Dataplane',
      mesh: 'payments',
      name: 'billing-1',
      kri: 'kri_dp_payments_default__billing-1_',
      creationTime: expect.any(String),
      modificationTime: expect.any(String),
      labels: { team: 'payments', ...computedDataplaneLabels('payments') },
      probes: { port: 9000, endpoints: [{ inboundPort: 18080, inboundPath: '/healthz', path: '/probe' }] },
      networking: dataplane('payments', 'billing-1').spec.networking,
    });
    expect(documents.every((document) => !('version' in document))).toBe(true);
    expect(documents[0]).not.toHaveProperty('mesh');
  });

  it('includes proxy-registered Dataplanes only when asked', async () => {
    const core = await startTestCore();
    await seed(core);

    const { text, skippedProxyRegistered } = await exportResources(core.manager, { includeProxyRegistered: true });

    expect(keysOf(text)).toContain('Dataplane/default/registered-1');
    expect(skippedProxyRegistered).toBe(0);
  });
});

describe('import', () => {
  it('round-trips: export → new data directory → import → export gives the same text, times aside', async () => {
    const source = await startTestCore();
    await seed(source);
    const exported = (await exportResources(source.manager, { includeProxyRegistered: true })).text;
    for (const kept of ['enabledBackend: ca-1', 'zoneEgress: true', 'inboundPath: /healthz', 'name: main']) expect(exported).toContain(kept);

    const target = await startTestCore();
    const report = await importText(target.manager, exported);

    expect(report.resources.map(formatImported)).toEqual([
      'resource type="Mesh" mesh="" name="default" Unchanged',
      'resource type="Mesh" mesh="" name="payments" Created',
      'resource type="Dataplane" mesh="default" name="registered-1" Created',
      'resource type="Dataplane" mesh="default" name="web-1" Created',
      'resource type="Dataplane" mesh="payments" name="billing-1" Created',
      // The default mesh's initial policies are there already; the new mesh's come from the import as exported.
      'resource type="MeshTimeout" mesh="default" name="mesh-gateways-timeout-all-default" Unchanged',
      'resource type="MeshTimeout" mesh="default" name="mesh-timeout-all-default" Unchanged',
      'resource type="MeshTimeout" mesh="payments" name="payments-timeouts" Created',
      'resource type="MeshCircuitBreaker" mesh="default" name="mesh-circuit-breaker-all-default" Unchanged',
      'resource type="MeshCircuitBreaker" mesh="payments" name="mesh-circuit-breaker-all-payments" Created',
      'resource type="MeshRetry" mesh="default" name="mesh-retry-all-default" Unchanged',
    ]);
    const reexported = (await exportResources(target.manager, { includeProxyRegistered: true })).text;
    expect(withoutTimes(reexported)).toBe(withoutTimes(exported));

    // Importing the same file again changes nothing.
    const again = await importText(target.manager, exported);
    expect(new Set(again.resources.map(({ action }) => action))).toEqual(new Set(['Unchanged']));
  });

  it.skipIf(!kumaCasesPresent())('imports what `kumactl get meshes -o yaml` and `kumactl get dataplanes -o yaml` print (lists with kri, total, next)', async () => {
    const core = await startTestCore();
    const meshes = kumactlGetYaml('list_mesh_04.golden.json');
    const dataplanes = kumactlGetYaml('list_dp_with_filters.golden.json');
    expect(meshes).toContain('next: http://');
    expect(dataplanes).toContain('kri: kri_dp_default___dp-1_');

    const report = await importText(core.manager, `${meshes}---\n${dataplanes}`);

    expect(report.resources.map(formatImported)).toEqual([
      'resource type="Mesh" mesh="" name="m1" Created',
      'resource type="Mesh" mesh="" name="m2" Created',
      'resource type="Dataplane" mesh="default" name="dp-1" Created',
      'resource type="Dataplane" mesh="default" name="dp-2" Created',
    ]);
    const dp2 = await core.manager.get('Dataplane', { mesh: 'default', name: 'dp-2' });
    expect(dp2.spec.networking.inbound?.map(({ port }) => port)).toEqual([1232, 1234]);
  });

  it('writes nothing when one document is invalid, and names its index, resource and field', async () => {
    const core = await startTestCore();
    const text = [
      'type: Mesh\nname: staging\n',
      stringify({ type: 'Dataplane', mesh: 'staging', name: 'ok-1', networking: dataplane('x', 'y').spec.networking }),
      'type: Dataplane\nmesh: staging\nname: bad-1\nnetworking:\n  address: 0.0.0.0\n  inbound:\n    - port: 80\n      tags: {kuma.io/service: bad}\n',
    ].join('---\n');

    const error = await importText(core.manager, text).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).violations).toEqual([
      { field: 'resource[2].networking.address', message: 'Dataplane "bad-1" in mesh "staging": must not be 0.0.0.0 or ::' },
    ]);
    expect((await core.manager.list('Mesh')).map(({ meta }) => meta.name)).toEqual(['default']);
    expect(await core.manager.list('Dataplane')).toEqual([]);
  });

  it('refuses a Dataplane whose mesh is neither stored nor imported, and the same resource twice', async () => {
    const core = await startTestCore();
    const web = stringify({ type: 'Dataplane', mesh: 'nowhere', name: 'web-1', networking: dataplane('x', 'y').spec.networking });

    const error = (await importText(core.manager, `${web}---\n${web}`).catch((caught: unknown) => caught)) as ValidationError;

    expect(error.violations).toEqual([
      { field: 'resource[1]', message: 'Dataplane "web-1" in mesh "nowhere" is already resource[0]' },
    ]);
    const missing = (await importText(core.manager, web).catch((caught: unknown) => caught)) as ValidationError;
    expect(missing.violations).toEqual([
      { field: 'resource[0].mesh', message: 'Dataplane "web-1" in mesh "nowhere": mesh "nowhere" does not exist and is not in the import' },
    ]);
  });

  it('refuses to change an existing resource without overwrite, writing nothing; with overwrite it updates at the version it read', async () => {
    const core = await startTestCore();
    const stored = await core.manager.create(dataplane('default', 'web-1'));
    const changed = stringify({ type: 'Dataplane', mesh: 'default', name: 'web-1', labels: { team: 'search' }, networking: stored.spec.networking });
    const text = `type: Mesh\nname: extra\n---\n${changed}`;

    const refused = await importText(core.manager, text).catch((caught: unknown) => caught);

    expect(refused).toBeInstanceOf(ExistingResourcesError);
    expect((refused as ExistingResourcesError).violations).toEqual([
      { field: 'resource[1]', message: 'Dataplane "web-1" in mesh "default" exists (version 1) with other content' },
    ]);
    expect(await core.manager.list('Mesh')).toHaveLength(1);

    const preview = await importText(core.manager, text, { overwrite: true, dryRun: true });
    expect(preview).toEqual({
      dryRun: true,
      resources: [
        { type: 'Mesh', mesh: '', name: 'extra', action: 'Created' },
        { type: 'Dataplane', mesh: 'default', name: 'web-1', action: 'Updated' },
      ],
    });
    expect(await core.manager.list('Mesh')).toHaveLength(1);

    await importText(core.manager, text, { overwrite: true });
    const updated = await core.manager.get('Dataplane', { mesh: 'default', name: 'web-1' });
    expect(updated.meta).toMatchObject({ version: 2, labels: { team: 'search' } });
    expect((await core.manager.list('Mesh')).map(({ meta }) => meta.name)).toEqual(['default', 'extra']);
  });
});

describe('ResourceManager.writeAll', () => {
  it('is all or nothing: a write that fails takes the ones before it back', async () => {
    const core = await startTestCore();
    await core.manager.create(dataplane('default', 'web-1'));

    const failed = core.manager.writeAll([
      { type: 'Mesh', mesh: '', name: 'extra', labels: {}, spec: {} },
      dataplane('extra', 'api-1'),
      dataplane('default', 'web-1'),
    ]);

    await expect(failed).rejects.toBeInstanceOf(ResourceAlreadyExistsError);
    expect((await core.manager.list('Mesh')).map(({ meta }) => meta.name)).toEqual(['default']);
    expect((await core.manager.list('Dataplane')).map(({ meta }) => meta.name)).toEqual(['web-1']);
  });
});
