// What kumactl calls for `config control-planes add`, `get`, `apply`, `delete` and `inspect dataplanes`
// (app/kumactl at v2.14.3), answered as Kuma answers them, beyond the API server goldens.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { DATAPLANE_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { computedDataplaneLabels } from '../support/computed-labels.js';
import { startTestCore } from '../support/core.js';
import { eventually } from '../support/eventually.js';
import { KUMA_CASES_DIR, kumaCasesPresent } from '../support/kuma-cases.js';

// Each Dataplane of the mesh listens on its own port: the manager refuses two on one address and port.
const dataplane = (name: string, service: string, port = 18080, extra: object = {}) => ({
  type: 'Dataplane',
  mesh: 'default',
  name,
  networking: { address: '127.0.0.1', inbound: [{ port, servicePort: 8080, tags: { 'kuma.io/service': service } }] },
  ...extra,
});

async function call(core: Core, path: string, method = 'GET', body?: unknown) {
  const response = await fetch(path.startsWith('http') ? path : `${core.api.url}${path}`, {
    method,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function putDataplanes(core: Core, names: string[]) {
  for (const [index, name] of names.entries()) {
    expect((await call(core, `/meshes/default/dataplanes/${name}`, 'PUT', dataplane(name, name, 18080 + index))).status).toBe(201);
  }
}

describe('kumactl config control-planes add: GET /', () => {
  it('identifies as Kuma of the version whose API meshdesk serves, and says it is meshdesk', async () => {
    const core = await startTestCore();
    const { status, body } = await call(core, '/');
    expect(status).toBe(200);
    expect(body).toMatchObject({ product: 'Kuma', tagline: 'Kuma', version: '2.14.3', basedOnKuma: '2.14.3', gui: '/gui/' });
    expect(body.instanceId).toEqual(expect.any(String));
    expect(body.clusterId).toEqual(expect.any(String));
    expect(body.meshdesk).toEqual({ version: expect.any(String) });
  });
});

describe('kumactl get: lists', () => {
  it('pages with size and offset, and the next URL leads through every item once', async () => {
    const core = await startTestCore();
    const names = ['dp-a', 'dp-b', 'dp-c', 'dp-d', 'dp-e'];
    await putDataplanes(core, names);

    const seen: string[] = [];
    let next: string | null = `${core.api.url}/meshes/default/dataplanes?size=2`;
    while (next !== null) {
      const { status, body } = await call(core, next);
      expect(status).toBe(200);
      expect(body.total).toBe(5);
      seen.push(...body.items.map((item: { name: string }) => item.name));
      next = body.next;
      if (next !== null) expect(new URL(next).searchParams.get('size')).toBe('2');
    }
    expect(seen).toEqual(names);
  });

  it('narrows by name substring, label and tag, and refuses a size of 0', async () => {
    const core = await startTestCore();
    await putDataplanes(core, ['web-1', 'web-2', 'backend-1']);
    await call(core, '/meshes/default/dataplanes/web-2', 'PUT', dataplane('web-2', 'web-2', 18081, { labels: { team: 'shop' } }));

    const names = async (query: string) => (await call(core, `/meshes/default/dataplanes?${query}`)).body.items.map((item: { name: string }) => item.name);
    expect(await names('name=web')).toEqual(['web-1', 'web-2']);
    expect(await names('filter[labels.team]=shop')).toEqual(['web-2']);
    expect(await names('filter[labels.kuma.io/proxy-type]=sidecar')).toEqual(['backend-1', 'web-1', 'web-2']);
    expect(await names('tag=kuma.io/service:backend')).toEqual(['backend-1']);
    expect(await names('tag=kuma.io/service:eb')).toEqual(['web-1', 'web-2']);
    expect(await names('gateway=true')).toEqual([]);
    expect(await call(core, '/meshes/default/dataplanes?size=0')).toMatchObject({ status: 400, body: { detail: 'Invalid page size' } });
  });

  it.skipIf(!kumaCasesPresent())('answers 404 Failed to retrieve Mesh for a list or a PUT in a mesh that does not exist', async () => {
    const core = await startTestCore();
    const missing = { type: '/std-errors', status: 404, title: 'Failed to retrieve Mesh', detail: 'Not found', details: 'Not found' };
    const body = readFileSync(join(KUMA_CASES_DIR, 'api', 'put_dp_into_missing_mesh.request.json'), 'utf8');

    expect(await call(core, '/meshes/not-a-mesh/dataplanes')).toEqual({ status: 404, body: missing });
    const put = await fetch(`${core.api.url}/meshes/not-a-mesh/dataplanes/dp-2`, { method: 'PUT', body });
    expect({ status: put.status, body: await put.json() }).toEqual({ status: 404, body: missing });
    expect(await call(core, '/meshes/not-a-mesh/dataplanes/_overview')).toEqual({ status: 404, body: missing });
  });
});

describe('kumactl get / apply / delete: items', () => {
  it('computes Kuma labels on write, gives the kri, and finds the resource by its kri', async () => {
    const core = await startTestCore();
    expect(await call(core, '/meshes/default/dataplanes/web-1', 'PUT', dataplane('web-1', 'web'))).toEqual({ status: 201, body: {} });
    expect(await call(core, '/meshes/default/dataplanes/web-1', 'PUT', dataplane('web-1', 'web'))).toEqual({ status: 200, body: {} });

    const { body } = await call(core, '/meshes/default/dataplanes/web-1');
    expect(body.labels).toEqual(computedDataplaneLabels());
    expect(body.kri).toBe('kri_dp_default_default__web-1_');
    expect((await call(core, `/_kri/${body.kri}`)).body).toEqual(body);
    expect((await call(core, '/_kri/kri_m____default_')).body).toMatchObject({ type: 'Mesh', name: 'default', kri: 'kri_m____default_' });
    expect(await call(core, '/_kri/not-a-kri')).toMatchObject({ status: 400, body: { title: 'Bad Request' } });
  });

  it('deletes with {} and answers Kuma texts for one that is not there', async () => {
    const core = await startTestCore();
    await putDataplanes(core, ['web-1']);
    expect(await call(core, '/meshes/default/dataplanes/web-1', 'DELETE')).toEqual({ status: 200, body: {} });
    expect(await call(core, '/meshes/default/dataplanes/web-1', 'DELETE')).toMatchObject({
      status: 404,
      body: { title: 'Could not delete a resource', detail: 'Not found' },
    });
  });

  it('lists the types it stores in the type catalogue, by name, policies with their targetRef sections', async () => {
    const core = await startTestCore();
    const { resources } = (await call(core, '/_resources')).body;
    expect(resources.map((resource: { name: string }) => resource.name)).toEqual([
      'Dataplane',
      'HostnameGenerator',
      'Mesh',
      'MeshAccessLog',
      'MeshCircuitBreaker',
      'MeshExternalService',
      'MeshFaultInjection',
      'MeshHTTPRoute',
      'MeshHealthCheck',
      'MeshLoadBalancingStrategy',
      'MeshMultiZoneService',
      'MeshRateLimit',
      'MeshRetry',
      'MeshService',
      'MeshTCPRoute',
      'MeshTimeout',
      'MeshTrafficPermission',
    ]);
    // The service model (meshservice/descriptors.ts), as kuma-cp 2.14.3 describes it.
    expect(resources).toContainEqual({
      name: 'MeshService', singularDisplayName: 'Mesh Service', pluralDisplayName: 'Mesh Services', path: 'meshservices', scope: 'Mesh', readOnly: false, includeInFederation: false, shortName: 'msvc',
    });
    expect(resources).toContainEqual(expect.objectContaining({ name: 'HostnameGenerator', path: 'hostnamegenerators', scope: 'Global', shortName: 'hg' }));
    expect(resources).toContainEqual({
      name: 'Mesh', singularDisplayName: 'Mesh', pluralDisplayName: 'Meshes', path: 'meshes', scope: 'Global', readOnly: false, includeInFederation: true, shortName: 'm',
    });
    expect(resources).toContainEqual(expect.objectContaining({ name: 'Dataplane', path: 'dataplanes', scope: 'Mesh', shortName: 'dp', readOnly: false }));
    // Kuma's MeshTimeout type descriptor, as kuma-cp 2.14.3 describes it.
    expect(resources).toContainEqual({
      name: 'MeshTimeout',
      singularDisplayName: 'Mesh Timeout',
      pluralDisplayName: 'Mesh Timeouts',
      path: 'meshtimeouts',
      scope: 'Mesh',
      readOnly: false,
      includeInFederation: true,
      shortName: 'mt',
      policy: { hasToTargetRef: true, hasFromTargetRef: true, hasRulesTargetRef: true, isTargetRef: true, isFromAsRules: true },
    });
  });
});

describe('kumactl get meshtimeouts / apply -f / delete meshtimeout: a policy', () => {
  // What kumactl's remote store PUTs: the rest resource of a v1alpha1 type, its spec under `spec`, Go's zero times.
  const meshTimeout = (name: string, idleTimeout: string) => ({
    type: 'MeshTimeout',
    mesh: 'default',
    name,
    creationTime: '0001-01-01T00:00:00Z',
    modificationTime: '0001-01-01T00:00:00Z',
    spec: { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: { idleTimeout } }] },
  });

  it('creates, reads, lists, updates and deletes at Kuma\'s paths, with Kuma\'s labels and kri', async () => {
    const core = await startTestCore();
    const item = '/meshes/default/meshtimeouts/timeouts';

    expect(await call(core, item)).toMatchObject({ status: 404, body: { title: 'Could not retrieve a resource' } });
    expect(await call(core, item, 'PUT', meshTimeout('timeouts', '20s'))).toEqual({ status: 201, body: {} });
    const { body } = await call(core, item);
    expect(body).toEqual({
      type: 'MeshTimeout',
      mesh: 'default',
      name: 'timeouts',
      creationTime: expect.any(String),
      modificationTime: expect.any(String),
      labels: { 'kuma.io/mesh': 'default', 'kuma.io/origin': 'zone', 'kuma.io/zone': 'default', 'kuma.io/env': 'universal' },
      kri: 'kri_mt_default_default__timeouts_',
      version: 1,
      spec: meshTimeout('timeouts', '20s').spec,
    });
    expect((await call(core, `/_kri/${body.kri}`)).body).toEqual(body);

    // `kumactl get meshtimeouts` (the mesh's list, with its initial policies) and the list of every mesh.
    const names = async (path: string) => (await call(core, path)).body.items.map((each: { name: string }) => each.name);
    expect(await names('/meshes/default/meshtimeouts')).toEqual(['mesh-gateways-timeout-all-default', 'mesh-timeout-all-default', 'timeouts']);
    expect(await names('/meshtimeouts?name=timeouts')).toEqual(['timeouts']);
    expect(await names('/meshes/default/meshretries')).toEqual(['mesh-retry-all-default']);

    // `kumactl apply -f` of a changed policy: the same PUT, now an update.
    expect(await call(core, item, 'PUT', meshTimeout('timeouts', '30s'))).toEqual({ status: 200, body: {} });
    expect((await call(core, item)).body).toMatchObject({ version: 2, spec: meshTimeout('timeouts', '30s').spec });
    // meshdesk's guards, as for Dataplanes: an update of a version no longer stored, a create-only PUT of one that exists.
    expect((await call(core, item, 'PUT', { ...meshTimeout('timeouts', '40s'), version: 1 })).status).toBe(409);
    expect((await call(core, `${item}?createOnly=true`, 'PUT', meshTimeout('timeouts', '40s'))).status).toBe(409);
    expect((await call(core, item)).body).toMatchObject({ version: 2 });

    expect(await call(core, item, 'DELETE')).toEqual({ status: 200, body: {} });
    expect(await call(core, item, 'DELETE')).toMatchObject({ status: 404, body: { title: 'Could not delete a resource', detail: 'Not found' } });
  });

  it("refuses an invalid policy with Kuma's paths and messages, and one in a mesh that does not exist", async () => {
    const core = await startTestCore();
    const invalid = { ...meshTimeout('bad', '1s'), spec: { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'MeshServiceSubset', name: 'x' }, default: { idleTimeout: '1s' } }] } };
    expect(await call(core, '/meshes/default/meshtimeouts/bad', 'PUT', invalid)).toMatchObject({
      status: 400,
      body: { title: 'Could not process a resource', invalid_parameters: [{ field: 'spec.to[0].targetRef.kind', reason: "value 'MeshServiceSubset' is not supported" }] },
    });
    // A conf field of another JSON type is named as Kuma's schema check names it (it failed a validator: a 500).
    const mistyped = { type: 'MeshRetry', mesh: 'default', name: 'mistyped', spec: { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: { http: { retryOn: [{ toString: 0 }] } } }] } };
    expect(await call(core, '/meshes/default/meshretries/mistyped', 'PUT', mistyped)).toMatchObject({
      status: 400,
      body: { invalid_parameters: [{ field: 'spec.to[0].default.http.retryOn[0]', reason: 'in body must be of type string: "object"' }] },
    });
    expect(await call(core, '/meshes/not-a-mesh/meshtimeouts')).toMatchObject({ status: 404, body: { title: 'Failed to retrieve Mesh' } });
    expect(await call(core, '/meshes/not-a-mesh/meshtimeouts/x', 'PUT', { ...meshTimeout('x', '1s'), mesh: 'not-a-mesh' })).toMatchObject({
      status: 404,
      body: { title: 'Failed to retrieve Mesh' },
    });
  });
});

describe.skipIf(!kumaCasesPresent())('kumactl inspect dataplanes: the DataplaneOverview', () => {
  it('shows a connected proxy online with its counters, offline once it left, and none for one never seen', async () => {
    const golden = JSON.parse(readFileSync(join(KUMA_CASES_DIR, 'api', 'kumactl-inspect-dataplanes.golden.json'), 'utf8'));
    const goldenSubscriptionKeys = new Set(
      golden.items.flatMap((item: any) => item.dataplaneInsight.subscriptions.flatMap((subscription: object) => Object.keys(subscription))),
    );
    const core = await startTestCore();
    core.settings.update({ 'xds.postCreateStrategy': 'invalidate' });
    await putDataplanes(core, ['backend-1']);
    const client = new RawAdsClient(core.xds.port, {
      id: 'default.web-1',
      metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(dataplane('web-1', 'web', 18081)) },
    });
    client.send(CLUSTER_TYPE_URL);
    client.send(LISTENER_TYPE_URL);
    client.ack(await client.next());
    client.ack(await client.next());
    const instanceId = (await call(core, '/')).body.instanceId;
    const item = await eventually(async () => {
      const { body } = await call(core, '/meshes/default/dataplanes/_overview/web-1');
      expect(body.dataplaneInsight.subscriptions[0].status.total.responsesAcknowledged).toBe('2');
      return body;
    });

    expect(item).toMatchObject({ type: 'DataplaneOverview', mesh: 'default', name: 'web-1', kri: 'kri_dp_default_default__web-1_' });
    const [subscription] = item.dataplaneInsight.subscriptions;
    expect(subscription).toMatchObject({
      controlPlaneInstanceId: instanceId,
      connectTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      status: {
        total: { responsesSent: '2', responsesAcknowledged: '2' },
        cds: { responsesSent: '1', responsesAcknowledged: '1' },
        lds: { responsesSent: '1', responsesAcknowledged: '1' },
        eds: {},
        rds: {},
      },
    });
    expect(subscription).not.toHaveProperty('disconnectTime');
    // Only fields kumactl knows: Kuma's own shape, nothing meshdesk-specific.
    for (const key of Object.keys(subscription)) expect([...goldenSubscriptionKeys, 'disconnectTime']).toContain(key);
    for (const key of Object.keys(item)) expect([...Object.keys(golden.items[0]), 'labels']).toContain(key);

    const list = (await call(core, '/meshes/default/dataplanes+insights')).body;
    expect(list.items.map((each: any) => [each.name, 'dataplaneInsight' in each])).toEqual([
      ['backend-1', false],
      ['web-1', true],
    ]);
    expect((await call(core, '/meshes/default/dataplanes/_overview?tag=kuma.io/service:web&gateway=false')).body.total).toBe(1);

    client.close();
    await eventually(async () => {
      const { body } = await call(core, '/meshes/default/dataplanes+insights/web-1');
      expect(body.dataplaneInsight.subscriptions[0].disconnectTime).toEqual(expect.any(String));
    });
  });
});
