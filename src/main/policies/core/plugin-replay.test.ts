import { describe, expect, it } from 'vitest';
import type { DataplaneResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { follows } from '../../xds/context/carried-memo.js';
import type { ContextReads } from '../../xds/context/context-view.js';
import type { MeshContext } from '../../xds/context/mesh-context.js';
import { generateProxy } from '../../xds/generate/profile.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import { CLUSTER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { meshRetryDescriptor } from '../meshretry/descriptor.js';
import { meshTimeoutDescriptor } from '../meshtimeout/descriptor.js';
import type { PluginInput, PolicyPlugin } from './plugin.js';
import type { PolicyResource } from './policy.js';
import { ruleFor } from './rules.js';
import { dataplaneResource, meshResource, policyResource } from './testing/resources.js';

// A tick after a change replays each plugin whose inputs did not change instead of running it
// (plugin-replay.ts). These count the runs of a stand-in plugin that sets the connect timeout of
// the `backend` cluster from its rule, and reads the protocol of `backend` when told to.

interface TimeoutConf {
  connectionTimeout?: string;
}

const web = dataplaneResource('web-1', [{ port: 8080, tags: { 'kuma.io/service': 'web' } }], { address: '127.0.0.1' });
const client: DataplaneResource = {
  ...web,
  spec: { networking: { ...web.spec.networking, outbound: [10001, 10002].map((port, index) => ({ port, tags: { 'kuma.io/service': ['backend', 'other'][index]! } })) } },
};
const backend = (protocol: string, address = '127.0.0.2') =>
  dataplaneResource('backend-1', [{ port: 9000, tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': protocol } }], { address });
const other = (address: string) => dataplaneResource('other-1', [{ port: 9000, tags: { 'kuma.io/service': 'other' } }], { address });
const timeout = (connectionTimeout: string) =>
  policyResource('MeshTimeout', 'slow-backend', { to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, default: { connectionTimeout } }] });

function countingPlugin(contextReads: ContextReads, readProtocol = false) {
  const counter = { runs: 0 };
  const plugin: PolicyPlugin<TimeoutConf> = {
    descriptor: meshTimeoutDescriptor,
    specShape: 'any',
    validate: () => {},
    contextReads: { envoy: contextReads, grpc: contextReads },
    applyEnvoy: ({ context, rules, resources }: PluginInput<TimeoutConf>) => {
      counter.runs++;
      const rule = ruleFor(rules.to, { 'kuma.io/service': 'backend' });
      const cluster = resources.get(CLUSTER_TYPE_URL, 'backend');
      if (!rule?.conf.connectionTimeout || !cluster) return;
      const protocol = readProtocol ? context.protocolByService.get('backend') : undefined;
      resources.put(CLUSTER_TYPE_URL, 'backend', { ...cluster, connect_timeout: rule.conf.connectionTimeout, ...(protocol && { alt_stat_name: protocol }) }, [
        { path: 'connect_timeout', origins: rule.origins },
      ]);
    },
    applyGrpc: () => {},
  };
  return { plugin: plugin as PolicyPlugin, counter };
}

/** The ticks of one mesh, each context carrying from the last, as the cache links them. */
function meshTicks() {
  let last: MeshContext | undefined;
  return (dataplanes: DataplaneResource[], policies: PolicyResource[]) => {
    const built = buildMeshContext(meshResource(), [client, ...dataplanes], { policies });
    last = last ? follows(built, last) : built;
    return last;
  };
}

const proxy: Proxy = { id: 'default.web-1', dataplane: client, kind: 'envoy' };
const backendCluster = (context: MeshContext, plugin: PolicyPlugin) =>
  generateProxy(context, proxy, [plugin]).resources[CLUSTER_TYPE_URL].find(({ name }) => name === 'backend')!.resource;

describe('a plugin whose inputs did not change', () => {
  it('is replayed, not run, and its puts are the very objects of its last run', () => {
    const { plugin, counter } = countingPlugin({ parts: [] });
    const tick = meshTicks();
    const first = backendCluster(tick([backend('http'), other('127.0.0.3')], [timeout('7s')]), plugin);
    // Another service's endpoint moved: the plugin read nothing of it.
    const second = backendCluster(tick([backend('http'), other('127.0.0.4')], [timeout('7s')]), plugin);

    expect(counter.runs).toBe(1);
    expect(second).toBe(first);
    expect(second.connect_timeout).toBe('7s');
  });

  it('runs again when its rules change', () => {
    const { plugin, counter } = countingPlugin({ parts: [] });
    const tick = meshTicks();
    backendCluster(tick([backend('http'), other('127.0.0.3')], [timeout('7s')]), plugin);
    const edited = backendCluster(tick([backend('http'), other('127.0.0.3')], [timeout('9s')]), plugin);

    expect(counter.runs).toBe(2);
    expect(edited.connect_timeout).toBe('9s');
  });

  it('runs again when a resource it read changed', () => {
    const { plugin, counter } = countingPlugin({ parts: [] });
    const tick = meshTicks();
    const http = backendCluster(tick([backend('http'), other('127.0.0.3')], [timeout('7s')]), plugin);
    // The backend speaks tcp now: its cluster, which the plugin read, is another one.
    const tcp = backendCluster(tick([backend('tcp'), other('127.0.0.3')], [timeout('7s')]), plugin);

    expect(counter.runs).toBe(2);
    expect(tcp.connect_timeout).toBe('7s');
    expect({ ...tcp, connect_timeout: undefined }).not.toEqual({ ...http, connect_timeout: undefined });
  });

  it('runs again when a context part it declares changed, and only then', () => {
    const { plugin, counter } = countingPlugin({ parts: ['protocols'] }, true);
    const tick = meshTicks();
    backendCluster(tick([backend('http'), other('127.0.0.3')], [timeout('7s')]), plugin);
    backendCluster(tick([backend('http'), other('127.0.0.4')], [timeout('7s')]), plugin);
    expect(counter.runs).toBe(1);

    // `other` speaks grpc now: the protocols changed, though not the backend's or its cluster.
    const withGrpc = dataplaneResource('other-1', [{ port: 9000, tags: { 'kuma.io/service': 'other', 'kuma.io/protocol': 'grpc' } }], { address: '127.0.0.4' });
    const after = backendCluster(tick([backend('http'), withGrpc], [timeout('7s')]), plugin);
    expect(counter.runs).toBe(2);
    expect(after.alt_stat_name).toBe('http');
  });

  it('runs again when what an earlier plugin set, which it asked about, changed', () => {
    const { plugin: timeouts } = countingPlugin({ parts: [] });
    // A later plugin that defers to the first, as MeshTCPRoute does to MeshHTTPRoute.
    const deferring: PolicyPlugin = {
      ...countingPlugin({ parts: [] }).plugin,
      descriptor: meshRetryDescriptor,
      applyEnvoy: ({ resources }) => {
        const cluster = resources.get(CLUSTER_TYPE_URL, 'other')!;
        resources.put(CLUSTER_TYPE_URL, 'other', { ...cluster, alt_stat_name: resources.setByPolicyOf(CLUSTER_TYPE_URL, 'backend', 'MeshTimeout') ? 'after-timeout' : 'alone' });
      },
    };
    const tick = meshTicks();
    const otherCluster = (policies: PolicyResource[]) =>
      generateProxy(tick([backend('http'), other('127.0.0.3')], policies), proxy, [timeouts, deferring]).resources[CLUSTER_TYPE_URL].find(({ name }) => name === 'other')!.resource;

    expect(otherCluster([timeout('7s')]).alt_stat_name).toBe('after-timeout');
    expect(otherCluster([]).alt_stat_name).toBe('alone');
  });

  it('runs again when the policy it named changed, not when another policy of its type did', () => {
    const counter = { runs: 0 };
    // Names the policy behind its rule, as a KRI or an unapplied field does: its labels go into the cluster.
    const naming: PolicyPlugin = {
      ...countingPlugin({ parts: [] }).plugin,
      applyEnvoy: ({ resources }) => {
        counter.runs++;
        const cluster = resources.get(CLUSTER_TYPE_URL, 'backend')!;
        resources.put(CLUSTER_TYPE_URL, 'backend', { ...cluster, alt_stat_name: resources.policyNamed('MeshTimeout', 'slow-backend')?.meta.labels['team'] ?? 'none' });
      },
    };
    const otherTimeout = (connectionTimeout: string) =>
      // Of the backend's proxies, not this client's: the client's rules stay the same.
      policyResource('MeshTimeout', 'other-timeout', { targetRef: { kind: 'MeshService', name: 'backend' }, to: [{ targetRef: { kind: 'Mesh' }, default: { connectionTimeout } }] });
    const labelled = (team: string) => ({ ...timeout('7s'), meta: { ...timeout('7s').meta, labels: { team } } });
    const tick = meshTicks();
    const cluster = (policies: PolicyResource[]) => backendCluster(tick([backend('http'), other('127.0.0.3')], policies), naming);

    expect(cluster([labelled('a'), otherTimeout('1s')]).alt_stat_name).toBe('a');
    cluster([labelled('a'), otherTimeout('2s')]);
    expect(counter.runs).toBe(1);
    expect(cluster([labelled('b'), otherTimeout('2s')]).alt_stat_name).toBe('b');
    expect(counter.runs).toBe(2);
  });

  it('fails the proxy, naming the plugin and what it read, when a plugin reads a part it does not declare', () => {
    const { plugin } = countingPlugin({ parts: [] }, true);
    const context = buildMeshContext(meshResource(), [client, backend('http')], { policies: [timeout('7s')] });

    expect(() => generateProxy(context, proxy, [plugin])).toThrow(
      'generator "policy plugin MeshTimeout" failed for proxy "default.web-1": reads the mesh context\'s protocolByService, which it does not declare (it declares nothing)',
    );
  });
});
