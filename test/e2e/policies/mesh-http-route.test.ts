// MeshHTTPRoute written through the API, proven on both real xDS clients calling two real servers.
import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { adsStreams, binomialTolerance, startPolicyMesh, tally } from '../../support/policy-mesh.js';

/** A MeshHTTPRoute of the mesh with these rules (YAML, indented as the list items of `rules`) for the `echo` service. */
const echoRoute = (name: string, rules: string) => `
type: MeshHTTPRoute
mesh: default
name: ${name}
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: echo
      rules:
${rules}`;

const route = (v1Weight: number, v2Weight: number) =>
  echoRoute(
    'echo-route',
    `        - matches:
            - path: { type: PathPrefix, value: / }
          default:
            backendRefs:
              - { kind: MeshServiceSubset, name: echo, tags: { version: v1 }, weight: ${v1Weight} }
              - { kind: MeshServiceSubset, name: echo, tags: { version: v2 }, weight: ${v2Weight} }
        - matches:
            - path: { type: PathPrefix, value: / }
              headers: [{ type: Exact, name: x-version, value: v2 }]
          default:
            backendRefs:
              - { kind: MeshServiceSubset, name: echo, tags: { version: v2 } }
`,
  );

// Over n calls each going to v2 with probability p, v2's count is binomial; the tolerance is 5
// standard deviations (binomialTolerance): 48 calls for 1000 calls at 10 % or 90 %.
const SPLIT_CALLS = 1000;
// Sent 100 at a time: 1000 concurrent calls against a 5 s deadline measure the loaded machine, not the split.
const SPLIT_BATCH = 100;

describe('MeshHTTPRoute on real data planes', () => {
  it('routes a header to v2, splits 90/10, moves traffic live on the same ADS stream, and restores round robin when deleted', async () => {
    const mesh = await startPolicyMesh([
      { name: 'v1', service: 'echo', tags: { version: 'v1' } },
      { name: 'v2', service: 'echo', tags: { version: 'v2' } },
    ]);
    const headerCalls = () => Promise.all(mesh.clients.map(async (client) => [client.name, tally(await client.calls('echo', 20, { headers: { 'x-version': 'v2' } }))] as const));
    const split = () =>
      Promise.all(
        mesh.clients.map(async (client) => {
          const results = [];
          for (let sent = 0; sent < SPLIT_CALLS; sent += SPLIT_BATCH) results.push(...(await client.calls('echo', SPLIT_BATCH)));
          return [client.name, tally(results)] as const;
        }),
      );
    // Without a route, round robin over both versions (once both connections are up): the header pins nothing.
    const bothVersionsAnswer = () =>
      eventually(async () => {
        for (const [name, counts] of await headerCalls()) expect(Object.keys(counts).sort(), name).toEqual(['v1', 'v2']);
      });
    await bothVersionsAnswer();

    await mesh.putPolicy('meshhttproutes', 'echo-route', route(90, 10));
    const streams = mesh.clients.flatMap(({ proxyIds }) => proxyIds.map((proxyId) => adsStreams(mesh.core, proxyId)));
    for (const [name, counts] of await headerCalls()) expect(counts, name).toEqual({ v2: 20 });
    for (const [name, counts] of await split()) {
      expect((counts["v1"] ?? 0) + (counts["v2"] ?? 0), `${name} ${JSON.stringify(counts)}`).toBe(SPLIT_CALLS);
      expect(Math.abs((counts['v2'] ?? 0) - SPLIT_CALLS * 0.1), `${name} ${JSON.stringify(counts)}`).toBeLessThanOrEqual(binomialTolerance(SPLIT_CALLS, 0.1));
    }

    await mesh.putPolicy('meshhttproutes', 'echo-route', route(10, 90));
    for (const [name, counts] of await split()) {
      expect(Math.abs((counts['v2'] ?? 0) - SPLIT_CALLS * 0.9), `${name} ${JSON.stringify(counts)}`).toBeLessThanOrEqual(binomialTolerance(SPLIT_CALLS, 0.9));
    }
    // The weights moved on the stream each client had: no reconnect.
    expect(mesh.clients.flatMap(({ proxyIds }) => proxyIds.map((proxyId) => adsStreams(mesh.core, proxyId)))).toEqual(streams);
    expect(streams.map((ids) => ids.length)).toEqual([1, 1]);

    await mesh.deletePolicy('meshhttproutes', 'echo-route');
    await bothVersionsAnswer();
  });
});

const regexRoute = (versionPattern: string) =>
  echoRoute(
    'echo-regex',
    `        - matches:
            - path: { type: RegularExpression, value: "/.*" }
              headers: [{ type: RegularExpression, name: x-version, value: "${versionPattern}" }]
          default:
            backendRefs:
              - { kind: MeshServiceSubset, name: echo, tags: { version: v2 } }
`,
  );

// Issue 27: a regex RE2 cannot read was accepted, and grpc-js-xds's RE2 engine threw on it (the client exited).
describe('MeshHTTPRoute regular expressions on real data planes', () => {
  it('routes by RE2 regexes on both clients, which keep running, and refuses one RE2 cannot read, with its offset', async () => {
    const mesh = await startPolicyMesh([
      { name: 'v1', service: 'echo', tags: { version: 'v1' } },
      { name: 'v2', service: 'echo', tags: { version: 'v2' } },
    ]);
    const pinnedToV2 = async () => {
      for (const client of mesh.clients) expect(tally(await client.calls('echo', 20, { headers: { 'x-version': 'V2' } })), client.name).toEqual({ v2: 20 });
    };

    await mesh.putPolicy('meshhttproutes', 'echo-regex', regexRoute('[vV]2'));
    await pinnedToV2();

    const refused = await fetch(`${mesh.core.api.url}/meshes/default/meshhttproutes/echo-regex`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/yaml' },
      body: regexRoute('(?<=x)[vV]2'),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { causes: unknown[] }).causes).toEqual([
      {
        field: 'spec.to[0].rules[0].matches[0].headers[0].value',
        message: 'must be a regular expression in RE2 syntax, which Envoy and gRPC use: invalid perl operator: (?< at offset 0',
      },
    ]);
    // Nothing changed: both clients still run and still route by the regex they have.
    await pinnedToV2();
  });
});
