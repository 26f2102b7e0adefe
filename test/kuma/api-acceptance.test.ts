// A Kuma user's files through meshdesk's HTTP API: every Mesh and Dataplane field Kuma has is accepted,
// given back as stored, and named when meshdesk does not act on it; kumactl's own PUT bodies are taken.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { computedDataplaneLabels } from '../support/computed-labels.js';
import { startTestCore } from '../support/core.js';
import { KUMA_CASES_DIR, kumaCasesPresent } from '../support/kuma-cases.js';

const DATAPLANE = `
type: Dataplane
mesh: default
name: web-1
labels:
  team: shop
networking:
  address: 10.0.0.1
  advertisedAddress: web-1.example
  inbound:
    - port: 18080
      servicePort: 8080
      serviceAddress: 10.0.0.2
      name: http
      protocol: http
      state: NotReady
      health:
        ready: true
      serviceProbe:
        interval: 10s
        timeout: 2s
        unhealthyThreshold: 3
        healthyThreshold: 1
        tcp: {}
      tags:
        kuma.io/service: web
        kuma.io/protocol: kafka
    - port: 18081
  outbound:
    - port: 10001
      tags:
        kuma.io/service: backend
    - port: 10002
      backendRef:
        kind: MeshService
        name: payments
        port: 80
  transparentProxying:
    redirectPortInbound: 15006
    redirectPortOutbound: 15001
    ipFamilyMode: DualStack
    reachableBackends:
      refs:
        - kind: MeshService
          name: payments
  admin:
    port: 9901
metrics:
  type: prometheus
  conf:
    port: 5670
    path: /metrics
probes:
  port: 9000
  endpoints:
    - inboundPort: 18080
      inboundPath: /healthz
      path: /18080/healthz
`;

const MESH = `
type: Mesh
name: team.shop
mtls:
  enabledBackend: ca-1
  backends:
    - name: ca-1
      type: builtin
      dpCert:
        rotation:
          expiration: 1d
      conf:
        caCert:
          RSAbits: 2048
          expiration: 10y
meshServices:
  mode: Exclusive
skipCreatingInitialPolicies: ["*"]
logging:
  backends:
    - name: file
      type: file
      conf:
        path: /tmp/access.log
routing:
  localityAwareLoadBalancing: true
constraints:
  dataplaneProxy:
    requirements:
      - tags:
          kuma.io/zone: "*"
`;

async function request(url: string, method = 'GET', body?: string) {
  const response = await fetch(url, { method, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The fields of a Kuma object other than the ones the API writes (times, version, kri). */
function withoutMeta(object: Record<string, unknown>) {
  const { creationTime: _c, modificationTime: _m, version: _v, kri: _k, ...rest } = object;
  return rest;
}

describe("a Kuma user's resources through the API", () => {
  it('stores every Dataplane field Kuma has, gives it back as written, and says which ones it does not act on', async () => {
    const core = await startTestCore();
    const url = `${core.api.url}/meshes/default/dataplanes/web-1`;

    expect((await request(url, 'PUT', DATAPLANE)).status).toBe(201);

    const written = parse(DATAPLANE) as Record<string, unknown>;
    expect(withoutMeta((await request(url)).body)).toEqual({ ...written, labels: { ...(written.labels as object), ...computedDataplaneLabels() } });
    expect((await request(`${url}/_not-applied`)).body).toEqual({
      notApplied: [
        'metrics',
        'probes',
        'networking.transparentProxying',
        'networking.inbound[0].name',
        'networking.inbound[0].protocol',
        'networking.inbound[0].state',
        'networking.inbound[0].health',
        'networking.inbound[0].serviceProbe',
        'networking.inbound[1]',
        'networking.outbound[1].backendRef',
      ],
    });
  });

  it('stores every Mesh field Kuma has, a dot in its name included, and says which are not applied', async () => {
    const core = await startTestCore();
    const url = `${core.api.url}/meshes/team.shop`;

    expect((await request(url, 'PUT', MESH)).status).toBe(201);

    expect(withoutMeta((await request(url)).body)).toEqual(parse(MESH));
    expect((await request(`${url}/_not-applied`)).body).toEqual({
      // mTLS with the builtin CA is applied, but for the CA's own parameters.
      notApplied: ['mtls.backends[0].conf', 'logging', 'routing', 'constraints', 'skipCreatingInitialPolicies', 'meshServices'],
    });
  });

  it.skipIf(!kumaCasesPresent())('takes the bodies kumactl apply (2.13 and later) PUTs, with kri and zero times', async () => {
    const core = await startTestCore();
    const body = (name: string) => readFileSync(join(KUMA_CASES_DIR, 'api', name), 'utf8');

    expect((await request(`${core.api.url}/meshes/sample`, 'PUT', body('kumactl_apply_mesh.request.json'))).status).toBe(201);
    const dataplane = await request(`${core.api.url}/meshes/default/dataplanes/sample`, 'PUT', body('kumactl_apply_dataplane.request.json'));

    expect(dataplane.status).toBe(201);
    const stored = (await request(`${core.api.url}/meshes/default/dataplanes/sample`)).body;
    expect(stored.networking).toEqual(JSON.parse(body('kumactl_apply_dataplane.request.json')).networking);
  });
});
