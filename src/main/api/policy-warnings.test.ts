// The warnings the API gives for a policy it stores (Kuma's `warnings` field of the PUT answer) and
// before Apply (`POST /meshes/{mesh}/_policy-warnings`), on a real core with its SQLite store; and
// the MeshHTTPRoute rules Kuma's schema refuses.
import { describe, expect, it } from 'vitest';
import { startTestCore } from '../../../test/support/core.js';
import { BACKEND_1, WEB_1, applyDataplane } from '../../../test/support/dataplanes.js';

async function startCore() {
  const core = await startTestCore();
  await applyDataplane(core, WEB_1);
  await applyDataplane(core, BACKEND_1);
  const send = async (method: 'PUT' | 'POST' | 'GET', path: string, body?: string) => {
    const response = await fetch(`${core.api.url}${path}`, { method, ...(body !== undefined && { body }) });
    return { status: response.status, body: (await response.json()) as any };
  };
  return { core, send };
}

const policy = (type: string, name: string, spec: string) => `type: ${type}\nmesh: default\nname: ${name}\nspec:\n${spec}`;

describe('policy warnings in the PUT answer', () => {
  it("gives Kuma's deprecation warnings in Kuma's words and order, then the analysis's, and stores the policy", async () => {
    const { send } = await startCore();
    const body = policy(
      'MeshTrafficPermission',
      'old-style',
      `  targetRef:
    kind: MeshService
    name: backend
  from:
    - targetRef:
        kind: MeshService
        name: web
      default:
        action: Allow
`,
    );
    const created = await send('PUT', '/meshes/default/meshtrafficpermissions/old-style', body);
    expect(created).toEqual({
      status: 201,
      body: {
        warnings: [
          "'from' field is deprecated and will be removed in 3.0, use 'rules' with MeshIdentity (spiffeId) instead",
          "MeshService value for 'from[].targetRef.kind' is deprecated, use MeshSubset with 'kuma.io/service' instead",
          "MeshService value for 'targetRef.kind' is deprecated, use Dataplane with labels instead",
          // The default mesh has mTLS off: meshdesk's analysis (docs/analysis.md) says what that means for this policy.
          'MD0011: MeshTrafficPermission old-style does nothing: mesh default has mTLS off, so no proxy knows who calls it and every call is let through. Fix: Turn mTLS on in mesh default (spec.mtls.enabledBackend naming a builtin backend), then check the permission matrix',
        ],
      },
    });
    expect((await send('GET', '/meshes/default/meshtrafficpermissions/old-style')).status).toBe(200);
  });

  it("answers {} for a policy with nothing to say", async () => {
    const { send } = await startCore();
    const answer = await send('PUT', '/meshes/default/meshtimeouts/fine', policy('MeshTimeout', 'fine', `  to:
    - targetRef:
        kind: MeshService
        name: backend
      default:
        connectionTimeout: 2s
`));
    expect(answer).toEqual({ status: 201, body: {} });
  });

  it('warns of a targetRef, a to item and a backendRef that select nothing, naming each field, until the mesh has what they name', async () => {
    const { core, send } = await startCore();
    const route = policy('MeshHTTPRoute', 'to-ghost', `  targetRef:
    kind: Dataplane
    labels:
      app: ghost
  to:
    - targetRef:
        kind: MeshService
        name: ghost
      rules:
        - matches:
            - path:
                type: PathPrefix
                value: /
          default:
            backendRefs:
              - kind: MeshService
                name: backend
              - kind: MeshServiceSubset
                name: backend
                tags:
                  version: v9
`);
    const first = await send('PUT', '/meshes/default/meshhttproutes/to-ghost', route);
    expect(first.status).toBe(201);
    expect(first.body.warnings).toEqual([
      'spec.targetRef {kind: Dataplane, labels: {app: ghost}} selects no Dataplane of mesh "default": the policy applies to no proxy until one matches',
      'spec.to[0].targetRef names service "ghost", which no Dataplane of mesh "default" provides or calls (no inbound or outbound tagged kuma.io/service: ghost)',
      'spec.to[0].rules[0].default.backendRefs[1] {kind: MeshServiceSubset, name: backend, tags: {version: v9}} matches no inbound of service "backend" in mesh "default"',
    ]);

    // The mesh gets what the policy names: the same policy is answered without a word.
    const ghost = {
      type: 'Dataplane',
      mesh: 'default',
      name: 'ghost-1',
      labels: { app: 'ghost' },
      networking: { address: '127.0.0.1', inbound: [{ port: 18090, tags: { 'kuma.io/service': 'ghost', 'kuma.io/protocol': 'http' } }] },
    };
    const backendV9 = {
      type: 'Dataplane',
      mesh: 'default',
      name: 'backend-v9',
      networking: { address: '127.0.0.1', inbound: [{ port: 18091, tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http', version: 'v9' } }] },
    };
    await applyDataplane(core, ghost);
    await applyDataplane(core, backendV9);
    expect(await send('PUT', '/meshes/default/meshhttproutes/to-ghost', route)).toEqual({ status: 200, body: {} });
  });

  it('says that a policy aimed at builtin gateways applies to nothing in meshdesk', async () => {
    const { send } = await startCore();
    const gateway = await send('PUT', '/meshes/default/meshtimeouts/gateway', policy('MeshTimeout', 'gateway', `  targetRef:
    kind: MeshGateway
    name: edge
  to:
    - targetRef:
        kind: Mesh
      default:
        connectionTimeout: 2s
`));
    expect(gateway.body.warnings).toEqual([
      'spec.targetRef {kind: MeshGateway}: meshdesk runs no builtin gateways (MeshGateway), so this applies to nothing here; it takes effect in a Kuma with builtin gateways',
    ]);
    const proxyTypes = await send('PUT', '/meshes/default/meshtimeouts/gateways-only', policy('MeshTimeout', 'gateways-only', `  targetRef:
    kind: Mesh
    proxyTypes: [Gateway]
  to:
    - targetRef:
        kind: Mesh
      default:
        connectionTimeout: 2s
`));
    expect(proxyTypes.body.warnings).toEqual([
      'spec.targetRef {kind: Mesh, proxyTypes: [Gateway]} selects no Dataplane of mesh "default": meshdesk runs no builtin gateways, and no delegated gateway Dataplane matches',
    ]);
  });

  it('gives the same warnings before Apply, writing nothing', async () => {
    const { send } = await startCore();
    const text = policy('MeshTimeout', 'not-yet', `  targetRef:
    kind: MeshSubset
    tags:
      kuma.io/service: nobody
  to:
    - targetRef:
        kind: Mesh
      default:
        connectionTimeout: 2s
`);
    const before = await send('POST', '/meshes/default/_policy-warnings', text);
    expect(before).toEqual({
      status: 200,
      body: {
        warnings: [
          "MeshSubset value for 'targetRef.kind' is deprecated, use Dataplane with labels instead",
          'spec.targetRef {kind: MeshSubset, tags: {kuma.io/service: nobody}} selects no Dataplane of mesh "default": the policy applies to no proxy until one matches',
        ],
        findings: [],
      },
    });
    expect((await send('GET', '/meshes/default/meshtimeouts/not-yet')).status).toBe(404);
    expect((await send('PUT', '/meshes/default/meshtimeouts/not-yet', text)).body).toEqual({ warnings: before.body.warnings });
  });

  it('answers a policy the PUT would refuse with that refusal, not with warnings', async () => {
    const { send } = await startCore();
    const invalid = await send('POST', '/meshes/default/_policy-warnings', policy('MeshTimeout', 'bad', '  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        connectionTimeout: soon\n'));
    expect(invalid).toEqual({ status: 200, body: { warnings: [], findings: [], refusal: { status: 400, title: 'Could not process a resource', detail: 'Resource is not valid' } } });
    const noMesh = await send('POST', '/meshes/nowhere/_policy-warnings', policy('MeshTimeout', 'bad', '  to: []\n'));
    expect(noMesh.body.refusal).toMatchObject({ status: 404, title: 'Failed to retrieve Mesh' });
  });
});

describe('MeshHTTPRoute rules Kuma refuses', () => {
  it.each([
    ['without matches', '          default: {}\n', 'spec.to[0].rules[0].matches', 'in body is required'],
    ['without default', '          matches:\n            - path:\n                type: PathPrefix\n                value: /\n', 'spec.to[0].rules[0].default', 'in body is required'],
  ])('refuses a rule %s with the schema message Kuma gives, and stores nothing', async (_name, rule, field, reason) => {
    const { send } = await startCore();
    const text = policy('MeshHTTPRoute', 'incomplete', `  to:
    - targetRef:
        kind: MeshService
        name: backend
      rules:
        - ${rule.trimStart()}`);
    const answer = await send('PUT', '/meshes/default/meshhttproutes/incomplete', text);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ title: 'Could not process a resource', detail: 'Resource is not valid', invalid_parameters: [{ field, reason }] });
    expect((await send('GET', '/meshes/default/meshhttproutes/incomplete')).status).toBe(404);
  });
});
