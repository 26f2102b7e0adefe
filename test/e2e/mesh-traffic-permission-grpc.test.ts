// MeshTrafficPermission enforced by real xDS-enabled gRPC servers (gRFC A41: the RBAC HTTP filter
// meshdesk puts on their mTLS listener), written through the API as Kuma YAML and proven with both
// real clients calling: two callers of each (grpc-js-xds and python3-grpcio), each its own identity.
import '../support/grpc-js-xds-rbac.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adsStreams, startPolicyMesh, tally, type ClientName, type MeshClient, type PolicyMesh, type TimedCallResult } from '../support/policy-mesh.js';
import { eventually } from '../support/eventually.js';

const SERVER = 'echo-1';
const SERVER_PROXY = `default.${SERVER}`;
const CALLS = 5;
const PATH = 'meshtrafficpermissions';
// Each client calls as two workloads, caller-a and caller-b: an identity is the workload's, whichever client.
const CLIENTS: readonly ClientName[] = ['grpc-js-xds', 'python3-grpcio'];
// A permission changes the server's listener only: a write waits for the servers' ACK, not the clients'.
const SERVER_ONLY = { unchanged: CLIENTS, servers: true };

/** A MeshTrafficPermission on every proxy of the mesh, with these `from` items (or `rules`). */
function permission(name: string, section: 'from' | 'rules', items: string): string {
  return `
type: MeshTrafficPermission
mesh: default
name: ${name}
spec:
  targetRef:
    kind: Mesh
  ${section}:
${items}`;
}

const from = (kind: 'Mesh' | 'MeshService', action: string, name?: string) => `
    - targetRef:
        kind: ${kind}${name ? `\n        name: ${name}` : ''}
      default:
        action: ${action}`;

type Outcome = 'allowed' | 'denied';

describe.each<ClientName>(['grpc-js-xds', 'python3-grpcio'])('MeshTrafficPermission on a %s xDS server', (serverKind) => {
  let mesh: PolicyMesh;
  /** Calls and denials per calling client implementation, for the closing figures. */
  const figures: Record<string, { calls: number; denied: number }> = {};

  beforeAll(async () => {
    mesh = await startPolicyMesh(
      [{ name: SERVER, service: 'echo', xdsServer: serverKind }],
      CLIENTS.flatMap((name) => [
        { name, workload: 'caller-a' },
        { name, workload: 'caller-b' },
      ]),
      { mtls: true },
    );
  }, 90_000);

  afterAll(() => console.log(`MeshTrafficPermission on a ${serverKind} server: ${JSON.stringify(figures)}`));

  /** What each caller's calls gave: the reply (which names the caller's certificate URI SANs as the server saw them) or the failure code. */
  async function outcomes(): Promise<Record<string, Record<string, number>>> {
    const results = await Promise.all(mesh.clients.map(async (client) => [client, await client.calls('echo', CALLS)] as const));
    for (const [client, calls] of results) count(client, calls);
    return Object.fromEntries(results.map(([client, calls]) => [`${client.name} ${client.workload}`, tally(calls, { whole: true })]));
  }

  function count(client: MeshClient, calls: readonly TimedCallResult[]) {
    const entry = (figures[client.name] ??= { calls: 0, denied: 0 });
    entry.calls += calls.length;
    entry.denied += calls.filter((call) => !call.ok && call.code === 'PERMISSION_DENIED').length;
  }

  /**
   * Waits until each caller, through either client, gets what `expected` says of its workload:
   * allowed calls answered with its SPIFFE identity as the server saw it, denied ones PERMISSION_DENIED.
   */
  async function expectOutcomes(expected: Record<'caller-a' | 'caller-b', Outcome>): Promise<void> {
    const wanted = Object.fromEntries(
      CLIENTS.flatMap((client) =>
        Object.entries(expected).map(([workload, outcome]) => [
          `${client} ${workload}`,
          outcome === 'denied' ? { PERMISSION_DENIED: CALLS } : { [`${SERVER}: hi from URI:spiffe://default/${workload}, URI:kuma://kuma.io/service/${workload}`]: CALLS },
        ]),
      ),
    );
    await eventually(async () => expect(await outcomes()).toEqual(wanted));
  }

  const everyone = (outcome: Outcome) => ({ 'caller-a': outcome, 'caller-b': outcome });

  /**
   * Deletes the permission and waits until every caller is denied again. Besides checking the
   * delete, it lets every client reconnect before the next change: grpc-js-xds 1.14's XdsServer
   * leaves a connection whose TLS handshake spans a listener swap on the old filter chain (the
   * swap closes only the sessions it already knows), so a change landing mid-reconnect would
   * keep that caller on the permissions before it.
   */
  async function deletePermission(name: string): Promise<void> {
    await mesh.deletePolicy(PATH, name, SERVER_ONLY);
    await expectOutcomes(everyone('denied'));
  }

  it('denies every caller while mTLS is on and no MeshTrafficPermission exists (Kuma’s default)', async () => {
    await expectOutcomes(everyone('denied'));
  });

  it('lets every caller through with an Allow permission, and the server sees each caller’s SPIFFE identity', async () => {
    await mesh.putPolicy(PATH, 'allow-all', permission('allow-all', 'from', from('Mesh', 'Allow')), SERVER_ONLY);
    await expectOutcomes(everyone('allowed'));
    await deletePermission('allow-all');
  });

  it('denies the callers a permission names, serves the others, and flips live when the permission changes', async () => {
    const streamsBefore = [SERVER_PROXY, ...mesh.clients.flatMap((client) => client.proxyIds)].map((proxyId) => adsStreams(mesh.core, proxyId));
    const denying = (caller: string) => permission('callers', 'from', from('Mesh', 'Allow') + from('MeshService', 'Deny', caller));

    await mesh.putPolicy(PATH, 'callers', denying('caller-a'), SERVER_ONLY);
    await expectOutcomes({ 'caller-a': 'denied', 'caller-b': 'allowed' });

    await mesh.putPolicy(PATH, 'callers', denying('caller-b'), SERVER_ONLY);
    await expectOutcomes({ 'caller-a': 'allowed', 'caller-b': 'denied' });
    // The same server and clients, each on the one ADS stream it opened: the change reached them live.
    const streamsAfter = [SERVER_PROXY, ...mesh.clients.flatMap((client) => client.proxyIds)].map((proxyId) => adsStreams(mesh.core, proxyId));
    expect(streamsAfter).toEqual(streamsBefore);
    expect(streamsAfter.every((streams) => streams.length === 1)).toBe(true);
    await deletePermission('callers');
  });

  it('denies by SPIFFE ID with the `rules` API: deny before allow, and a caller neither names is denied', async () => {
    const rules = `
    - default:
        deny:
          - spiffeID: { type: Exact, value: spiffe://default/caller-a }
        allow:
          - spiffeID: { type: Prefix, value: spiffe://default }`;
    await mesh.putPolicy(PATH, 'by-spiffe-id', permission('by-spiffe-id', 'rules', rules), SERVER_ONLY);
    await expectOutcomes({ 'caller-a': 'denied', 'caller-b': 'allowed' });
    await deletePermission('by-spiffe-id');
  });

  it('lets AllowWithShadowDeny callers through (gRPC keeps no shadow record, and says so) while the others stay denied', async () => {
    await mesh.putPolicy(PATH, 'shadow', permission('shadow', 'from', from('MeshService', 'AllowWithShadowDeny', 'caller-a')), SERVER_ONLY);
    await expectOutcomes({ 'caller-a': 'allowed', 'caller-b': 'denied' });
    const unapplied = mesh.core.xds.policyEffects.get(SERVER_PROXY)?.unapplied ?? [];
    expect(unapplied.filter(({ policy }) => policy.type === 'MeshTrafficPermission')).toEqual([
      expect.objectContaining({ policy: { type: 'MeshTrafficPermission', name: 'shadow' }, field: 'spec.from[0].default.action' }),
    ]);
    await deletePermission('shadow');
  });
});
