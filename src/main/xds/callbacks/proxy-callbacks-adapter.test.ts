import { status } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { PROXY_TYPE_METADATA_KEY } from '../generate/proxy.js';
import type { Node } from '../protocol/ads-service.js';
import { StreamError } from '../server/callbacks.js';
import { CLUSTER_TYPE_URL } from '../protocol/type-urls.js';
import { adaptProxyCallbacks } from './proxy-callbacks-adapter.js';
import type { ConnectedProxy, ProxyCallbacks } from './proxy-callbacks.js';
import { TestControlPlane } from './testing/control-plane.js';

/** A proxy-level callback that logs "<name> connected|disconnected <proxy id>", and can refuse. */
class LoggingProxyCallbacks implements ProxyCallbacks {
  readonly connected: ConnectedProxy[] = [];

  constructor(
    private readonly name: string,
    private readonly log: string[],
    private readonly refuse = false,
  ) {}

  onProxyConnected(proxy: ConnectedProxy): void {
    this.log.push(`${this.name} connected ${proxy.proxyId}`);
    this.connected.push(proxy);
    if (this.refuse) throw new StreamError(status.PERMISSION_DENIED, `${this.name} refuses ${proxy.proxyId}`);
  }

  onProxyDisconnected(proxy: ConnectedProxy): void {
    this.log.push(`${this.name} disconnected ${proxy.proxyId}`);
  }
}

let controlPlane: TestControlPlane;
let log: string[];

beforeEach(async () => {
  controlPlane = await TestControlPlane.start();
  log = [];
});

afterEach(async () => {
  await controlPlane.close();
});

async function refusedStatus(port: number, node: Node) {
  const client = controlPlane.proxy(port, node);
  void client.barrier();
  return client.status;
}

describe('ProxyCallbacksAdapter', () => {
  test('connects a proxy once per stream, with the Dataplane key, the kind, the features, the work directory and the user agent read from its node', async () => {
    const callbacks = new LoggingProxyCallbacks('lifecycle', log);
    const port = await controlPlane.serve([adaptProxyCallbacks(callbacks)]);
    const node: Node = { id: 'default.backend.v1', user_agent_name: 'gRPC Node Pure JS', user_agent_version: '1.14.0', metadata: { features: ['feature-reuse-port'], workdir: '/tmp/kuma-dp' } };

    const client = controlPlane.proxy(port, node);
    await client.barrier();
    client.send(CLUSTER_TYPE_URL);
    await client.barrier();

    expect(callbacks.connected).toEqual([
      {
        streamId: expect.any(Number),
        streamOpenedAt: expect.any(Number),
        proxyId: 'default.backend.v1',
        // The mesh ends at the first '.': mesh names cannot contain one, Dataplane names can.
        dataplaneKey: { type: 'Dataplane', mesh: 'default', name: 'backend.v1' },
        kind: 'grpc',
        features: new Set(['feature-reuse-port']),
        workDir: '/tmp/kuma-dp',
        userAgent: { name: 'gRPC Node Pure JS', version: '1.14.0' },
        node: expect.objectContaining(node),
        closed: expect.any(AbortSignal),
      },
    ]);
  });

  test.each([
    ['backend-1', `node id "backend-1" has no '.'`],
    ['.backend-1', `node id ".backend-1" has an empty mesh before the '.'`],
    ['default.', `node id "default." has an empty name after the '.'`],
  ])('refuses node id %j with INVALID_ARGUMENT naming it', async (nodeId, problem) => {
    const callbacks = new LoggingProxyCallbacks('lifecycle', log);
    const port = await controlPlane.serve([adaptProxyCallbacks(callbacks)]);

    const closed = await refusedStatus(port, { id: nodeId });

    expect(closed.code).toBe(status.INVALID_ARGUMENT);
    expect(closed.details).toContain(`proxy "${nodeId}" cannot connect: ${problem}`);
    expect(log).toEqual([]);
  });

  test('refuses malformed proxy-type metadata with INVALID_ARGUMENT naming the node id', async () => {
    const port = await controlPlane.serve([adaptProxyCallbacks(new LoggingProxyCallbacks('lifecycle', log))]);

    const closed = await refusedStatus(port, { id: 'default.backend-1', metadata: { [PROXY_TYPE_METADATA_KEY]: 'sidecar' } });

    expect(closed.code).toBe(status.INVALID_ARGUMENT);
    expect(closed.details).toContain(`proxy "default.backend-1" cannot connect: node metadata "${PROXY_TYPE_METADATA_KEY}" must be "envoy" or "grpc"`);
  });

  test('tells a callback of a disconnect only if its own connect succeeded, in reverse chain order', async () => {
    const port = await controlPlane.serve([
      adaptProxyCallbacks(new LoggingProxyCallbacks('lifecycle', log)),
      adaptProxyCallbacks(new LoggingProxyCallbacks('validator', log, true)),
      adaptProxyCallbacks(new LoggingProxyCallbacks('sync-tracker', log)),
    ]);
    const accepted = controlPlane.proxy(port, { id: 'default.backend-1' });
    void accepted.barrier();

    const closed = await accepted.status;
    await controlPlane.closed('default.backend-1');

    expect(closed.code).toBe(status.PERMISSION_DENIED);
    expect(log).toEqual([
      'lifecycle connected default.backend-1',
      'validator connected default.backend-1',
      'lifecycle disconnected default.backend-1',
    ]);
  });

  test('disconnects every connected callback when the proxy closes its stream', async () => {
    const port = await controlPlane.serve([
      adaptProxyCallbacks(new LoggingProxyCallbacks('lifecycle', log)),
      adaptProxyCallbacks(new LoggingProxyCallbacks('sync-tracker', log)),
    ]);
    const client = controlPlane.proxy(port, { id: 'default.backend-1' });
    await client.barrier();

    client.close();
    await controlPlane.closed('default.backend-1');

    expect(log).toEqual([
      'lifecycle connected default.backend-1',
      'sync-tracker connected default.backend-1',
      'sync-tracker disconnected default.backend-1',
      'lifecycle disconnected default.backend-1',
    ]);
  });
});
