import { status } from '@grpc/grpc-js';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ResourceNotFoundError } from '../../store/errors.js';
import { DATAPLANE_METADATA_KEY } from '../generate/bootstrap.js';
import type { Callbacks } from '../server/callbacks.js';
import { now, type PostCreateStrategy, type ProxyEvent } from '../status/proxy-timeline.js';
import { AuthCallbacks } from './auth.js';
import { DataplaneLifecycle, ORIGIN_LABEL, OVERRIDE_DENIED, PROXY_ORIGIN } from './dataplane-lifecycle.js';
import { adaptProxyCallbacks } from './proxy-callbacks-adapter.js';
import type { ConnectedProxy, ProxyCallbacks } from './proxy-callbacks.js';
import { computedDataplaneLabels } from '../../../../test/support/computed-labels.js';
import { TestControlPlane, dataplaneInput, nodeWithDataplane, universalDataplane } from './testing/control-plane.js';
import { GatedSleep, recordingSleep } from './testing/sleeps.js';

const PROXY_ID = 'default.backend-1';
const KEY = { type: 'Dataplane', mesh: 'default', name: 'backend-1' } as const;
const LONG_TTL = '1h';

/**
 * Stands in for the sync tracker, next in the chain: its "first generation" reads the mesh's
 * Dataplanes through the cached manager, as the MeshContext does, and records whether the
 * proxy's own Dataplane was in it.
 */
class FirstGenerationProbe implements ProxyCallbacks {
  constructor(private readonly controlPlane: TestControlPlane) {}

  async onProxyConnected(proxy: ConnectedProxy): Promise<void> {
    const dataplanes = await this.controlPlane.cachedManager.list('Dataplane', { mesh: proxy.dataplaneKey.mesh });
    const found = dataplanes.some((dataplane) => dataplane.meta.name === proxy.dataplaneKey.name);
    this.controlPlane.timeline.record(proxy.proxyId, {
      kind: 'tick',
      at: now(),
      result: found ? 'generated' : 'dataplane-not-found',
      durationMs: 0,
    });
  }

  onProxyDisconnected(): void {}
}

let controlPlane: TestControlPlane;

beforeEach(async () => {
  controlPlane = await TestControlPlane.start();
});

afterEach(async () => {
  await controlPlane.close();
});

/** The product's chain up to the sync tracker: auth, lifecycle, then the probe standing in for the tracker. */
async function serve(lifecycle: DataplaneLifecycle, { auth = true } = {}): Promise<number> {
  const chain: Callbacks[] = [
    ...(auth ? [new AuthCallbacks()] : []),
    adaptProxyCallbacks(lifecycle),
    adaptProxyCallbacks(new FirstGenerationProbe(controlPlane)),
  ];
  return controlPlane.serve(chain);
}

/** Opens a stream for the proxy and waits until the chain has accepted it. */
async function connect(port: number, node = nodeWithDataplane(PROXY_ID, universalDataplane('default', 'backend-1'))) {
  const client = controlPlane.proxy(port, node);
  await client.barrier();
  return client;
}

/** Opens a stream whose first request the chain refuses; resolves with the status it was closed with. */
async function refusedStatus(port: number, node: Parameters<TestControlPlane['proxy']>[1]) {
  const client = controlPlane.proxy(port, node);
  void client.barrier().catch(() => {});
  return client.status;
}

function eventsOf<K extends ProxyEvent['kind']>(proxyId: string, kind: K): Array<Extract<ProxyEvent, { kind: K }>> {
  return controlPlane.timeline.events(proxyId).filter((event): event is Extract<ProxyEvent, { kind: K }> => event.kind === kind);
}

/** Fills the cache with the mesh's Dataplane lists as they are now. */
async function primeCache(): Promise<void> {
  await controlPlane.cachedManager.list('Dataplane', { mesh: 'default' });
  await controlPlane.cachedManager.list('Dataplane');
}

function cachedKeys(): string[] {
  return controlPlane.cachedManager.entries().map((entry) => entry.key);
}

describe('universal flow: the proxy brings its Dataplane in its metadata', () => {
  test('stores the Dataplane with the proxy origin label and records registered before the first generation', async () => {
    const { sleep } = recordingSleep();
    const port = await serve(controlPlane.lifecycle({ sleep }));

    await connect(port);

    const stored = await controlPlane.manager.get('Dataplane', KEY);
    expect(stored.meta.labels).toEqual({ [ORIGIN_LABEL]: PROXY_ORIGIN, ...computedDataplaneLabels() });
    expect(stored.spec).toEqual(dataplaneInput('default', 'backend-1').spec);
    expect(controlPlane.kinds(PROXY_ID)).toEqual(['stream-opened', 'registered', 'post-create-wait-started', 'post-create-wait', 'tick']);
    expect(eventsOf(PROXY_ID, 'registered')).toEqual([
      { kind: 'registered', seq: expect.any(Number), at: expect.any(Number), origin: 'metadata', created: true, version: stored.meta.version },
    ]);
  });

  test('reads the Dataplane from YAML as well as JSON', async () => {
    const port = await serve(controlPlane.lifecycle({ sleep: recordingSleep().sleep }));

    await connect(port, { id: PROXY_ID, metadata: { [DATAPLANE_METADATA_KEY]: stringify(universalDataplane('default', 'backend-1')) } });

    expect((await controlPlane.manager.get('Dataplane', KEY)).spec).toEqual(dataplaneInput('default', 'backend-1').spec);
  });

  test('refuses an invalid Dataplane with INVALID_ARGUMENT naming the proxy and every violation, and stores nothing', async () => {
    const port = await serve(controlPlane.lifecycle());
    const invalid = { ...universalDataplane('default', 'backend-1'), networking: { address: '127.0.0.1', inbound: [{ port: 70000, tags: { version: 'v1' } }] } };

    const closed = await refusedStatus(port, nodeWithDataplane(PROXY_ID, invalid));

    expect(closed.code).toBe(status.INVALID_ARGUMENT);
    expect(closed.details).toContain(`proxy "${PROXY_ID}" sent an invalid Dataplane in node metadata "dataplane.resource"`);
    expect(closed.details).toContain('networking.inbound[0].port: port must be in the range [1, 65535]');
    expect(closed.details).toContain('networking.inbound[0].tags["kuma.io/service"]: tag has to exist');
    expect(await controlPlane.manager.list('Dataplane')).toEqual([]);
    expect(controlPlane.kinds(PROXY_ID)).toEqual(['stream-opened']); // the status tracker records the close, with the refusal
  });

  test('treats a Dataplane whose mesh or name differs from the node id as a violation', async () => {
    const port = await serve(controlPlane.lifecycle());

    const closed = await refusedStatus(port, nodeWithDataplane(PROXY_ID, universalDataplane('default', 'backend-2')));

    expect(closed.code).toBe(status.INVALID_ARGUMENT);
    expect(closed.details).toContain(`name: "backend-2" does not match node id "${PROXY_ID}": must be "backend-1"`);
    expect(await controlPlane.manager.list('Dataplane')).toEqual([]);
  });

  test('refuses metadata that is not a string, or YAML that does not parse, as an invalid Dataplane', async () => {
    const port = await serve(controlPlane.lifecycle());

    const notText = await refusedStatus(port, { id: PROXY_ID, metadata: { [DATAPLANE_METADATA_KEY]: universalDataplane('default', 'backend-1') } });
    const notYaml = await refusedStatus(port, { id: 'default.backend-2', metadata: { [DATAPLANE_METADATA_KEY]: 'type: [Dataplane' } });

    expect(notText).toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringContaining('must be a string holding the Dataplane as JSON or YAML') });
    expect(notYaml).toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringContaining('proxy "default.backend-2" sent an invalid Dataplane') });
  });

  test('refuses with PERMISSION_DENIED a proxy overriding a Dataplane another live proxy registered', async () => {
    // Auth refuses a second stream with the same node id first; the lifecycle does not rely on it.
    const port = await serve(controlPlane.lifecycle({ sleep: recordingSleep().sleep }), { auth: false });
    const first = await connect(port);
    const registered = await controlPlane.manager.get('Dataplane', KEY);

    const closed = await refusedStatus(port, nodeWithDataplane(PROXY_ID, universalDataplane('default', 'backend-1', 'other-service')));

    expect(closed.code).toBe(status.PERMISSION_DENIED);
    expect(closed.details).toBe(`proxy "${PROXY_ID}": ${OVERRIDE_DENIED}`);
    expect(await controlPlane.manager.get('Dataplane', KEY)).toEqual(registered);
    expect(await first.barrier()).toEqual([]); // the owner is still served
  });

  test('registers when two streams of a new proxy bring its Dataplane at once: the one that loses the create updates', async () => {
    controlPlane.settings.update({ 'xds.postCreateStrategy': 'none' });
    const port = await serve(controlPlane.lifecycle(), { auth: false });

    const node = nodeWithDataplane(PROXY_ID, universalDataplane('default', 'backend-1'));
    const clients = [controlPlane.proxy(port, node), controlPlane.proxy(port, node)];
    const outcomes = await Promise.all(
      clients.map((client) => Promise.race([client.barrier().then(() => 'accepted' as const), client.status.then((closed) => closed)])),
    );

    // "At once" is up to the scheduler: when the second stream's registration starts only after the
    // first one's has finished, it meets a live owner and is refused as any other override would be.
    const refused = outcomes.filter((outcome) => outcome !== 'accepted');
    if (refused.length === 0) {
      expect(eventsOf(PROXY_ID, 'registered').map(({ created }) => created).sort()).toEqual([false, true]);
      expect((await controlPlane.manager.get('Dataplane', KEY)).meta).toMatchObject({ version: 2, labels: { [ORIGIN_LABEL]: PROXY_ORIGIN } });
    } else {
      expect(refused).toEqual([expect.objectContaining({ code: status.PERMISSION_DENIED, details: expect.stringContaining(OVERRIDE_DENIED) })]);
      expect(eventsOf(PROXY_ID, 'registered').map(({ created }) => created)).toEqual([true]);
      expect((await controlPlane.manager.get('Dataplane', KEY)).meta).toMatchObject({ version: 1, labels: { [ORIGIN_LABEL]: PROXY_ORIGIN } });
    }
  });

  test('closes the stream with FAILED_PRECONDITION when the mesh of the Dataplane does not exist', async () => {
    const port = await serve(controlPlane.lifecycle());

    const closed = await refusedStatus(port, nodeWithDataplane('demo.backend-1', universalDataplane('demo', 'backend-1')));

    expect(closed).toMatchObject({ code: status.FAILED_PRECONDITION, details: expect.stringContaining('mesh "demo" does not exist') });
  });

  test('closes the stream with INVALID_ARGUMENT, naming the port and the other Dataplane, when its inbound port is taken', async () => {
    const port = await serve(controlPlane.lifecycle());
    await connect(port);

    const closed = await refusedStatus(port, nodeWithDataplane('default.backend-2', universalDataplane('default', 'backend-2')));

    expect(closed).toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: expect.stringMatching(/^proxy "default\.backend-2" cannot register its Dataplane: .*networking\.inbound\[0\]\.port: .*:18080 is already used by .* of Dataplane "backend-1"/),
    });
  });
});

describe('post-create wait', () => {
  test('sleep sleeps the cache expiration time in force when the proxy registers', async () => {
    const { sleep, requested } = recordingSleep();
    const port = await serve(controlPlane.lifecycle({ sleep }));

    controlPlane.settings.update({ 'xds.postCreateStrategy': 'sleep', 'store.cache.expirationTime': '1s' });
    await connect(port);
    controlPlane.settings.update({ 'store.cache.expirationTime': '250ms' });
    await connect(port, nodeWithDataplane('default.backend-2', universalDataplane('default', 'backend-2', 'backend', 18081)));

    expect(requested).toEqual([1000, 250]);
    expect(eventsOf(PROXY_ID, 'post-create-wait')).toEqual([
      expect.objectContaining({ strategy: 'sleep', cause: 'waited 1.00 s for cache expiration (strategy: sleep)' }),
    ]);
  });

  test('sleep: the first generation sees the new Dataplane although the cache held a list without it', async () => {
    controlPlane.settings.update({ 'xds.postCreateStrategy': 'sleep', 'store.cache.expirationTime': '100ms' });
    const port = await serve(controlPlane.lifecycle()); // the real sleep
    await primeCache();

    await connect(port);

    expect(controlPlane.kinds(PROXY_ID)).toEqual(['stream-opened', 'registered', 'post-create-wait-started', 'post-create-wait', 'tick']);
    const [wait] = eventsOf(PROXY_ID, 'post-create-wait');
    const [registered] = eventsOf(PROXY_ID, 'registered');
    expect(wait!.startedAt).toBeGreaterThanOrEqual(registered!.at);
    expect(eventsOf(PROXY_ID, 'tick')).toEqual([expect.objectContaining({ result: 'generated' })]);
  });

  test('invalidate drops the cached reads of the Dataplane and its MeshContext instead of sleeping', async () => {
    controlPlane.settings.update({ 'xds.postCreateStrategy': 'invalidate', 'store.cache.expirationTime': LONG_TTL });
    const { sleep, requested } = recordingSleep();
    const port = await serve(controlPlane.lifecycle({ sleep }));
    await primeCache();
    expect(cachedKeys()).toEqual(expect.arrayContaining(['LIST:Dataplane:default', 'LIST:Dataplane:']));

    await connect(port);

    expect(cachedKeys()).not.toContain('LIST:Dataplane:');
    expect(controlPlane.invalidatedMeshContexts).toEqual(['default']);
    expect(requested).toEqual([]);
    expect(eventsOf(PROXY_ID, 'post-create-wait')).toEqual([
      expect.objectContaining({ strategy: 'invalidate', cause: 'invalidated the cached Dataplane and MeshContext (strategy: invalidate)' }),
    ]);
    // The probe's list was loaded again, after the registration, and found it.
    expect(eventsOf(PROXY_ID, 'tick')).toEqual([expect.objectContaining({ result: 'generated' })]);
  });

  test('none neither sleeps nor invalidates: the first generation misses the new Dataplane (the old bug)', async () => {
    controlPlane.settings.update({ 'xds.postCreateStrategy': 'none', 'store.cache.expirationTime': LONG_TTL });
    const { sleep, requested } = recordingSleep();
    const port = await serve(controlPlane.lifecycle({ sleep }));
    await primeCache();

    await connect(port);

    expect(cachedKeys()).toEqual(expect.arrayContaining(['LIST:Dataplane:default', 'LIST:Dataplane:']));
    expect(controlPlane.invalidatedMeshContexts).toEqual([]);
    expect(requested).toEqual([]);
    expect(eventsOf(PROXY_ID, 'post-create-wait')).toEqual([
      expect.objectContaining({ strategy: 'none', cause: 'no wait (strategy: none)' }),
    ]);
    expect(eventsOf(PROXY_ID, 'tick')).toEqual([expect.objectContaining({ result: 'dataplane-not-found' })]);
  });

  test('two proxies registering at once sleep at the same time, not one after the other', async () => {
    controlPlane.settings.update({ 'xds.postCreateStrategy': 'sleep', 'store.cache.expirationTime': '1s' });
    const gate = new GatedSleep();
    const port = await serve(controlPlane.lifecycle({ sleep: gate.sleep }));

    const first = connect(port);
    const second = connect(port, nodeWithDataplane('default.backend-2', universalDataplane('default', 'backend-2', 'backend', 18081)));
    await gate.started(2); // a lock around registrations would never let the second sleep start
    gate.releaseAll();
    await Promise.all([first, second]);

    const [a] = eventsOf(PROXY_ID, 'post-create-wait');
    const [b] = eventsOf('default.backend-2', 'post-create-wait');
    expect(gate.requested).toEqual([1000, 1000]);
    expect(a!.startedAt).toBeLessThan(b!.at);
    expect(b!.startedAt).toBeLessThan(a!.at);
  });
});

describe('a stream closing during its post-create wait', () => {
  test('ends the wait at once and releases its node id: the proxy reconnecting is not refused as already connected', async () => {
    controlPlane.settings.update({ 'xds.postCreateStrategy': 'sleep', 'store.cache.expirationTime': LONG_TTL });
    const port = await serve(controlPlane.lifecycle()); // the real sleep, an hour long
    const leaving = controlPlane.proxy(port, nodeWithDataplane(PROXY_ID, universalDataplane('default', 'backend-1')));
    void leaving.barrier().catch(() => {});
    await controlPlane.event(PROXY_ID, 'registered'); // the wait follows at once

    leaving.close();
    await controlPlane.closed(PROXY_ID);
    controlPlane.settings.update({ 'xds.postCreateStrategy': 'invalidate' }); // the comeback itself need not sleep an hour
    const back = await connect(port);

    expect(await back.barrier()).toEqual([]);
    const [cutShort] = eventsOf(PROXY_ID, 'post-create-wait');
    expect(cutShort!.cause).toMatch(/^cut short by the stream closing after .* of 3600\.00 s \(strategy: sleep\)$/);
    expect(eventsOf(PROXY_ID, 'tick')).toHaveLength(1); // the closed stream ran no further hooks: only the comeback generated
  });
});

describe('Dataplane created via the API', () => {
  test.each<PostCreateStrategy>(['sleep', 'invalidate', 'none'])('records registered with origin api and never waits (strategy: %s)', async (strategy) => {
    controlPlane.settings.update({ 'xds.postCreateStrategy': strategy, 'store.cache.expirationTime': LONG_TTL });
    const created = await controlPlane.manager.create(dataplaneInput('default', 'backend-1'));
    const { sleep, requested } = recordingSleep();
    const port = await serve(controlPlane.lifecycle({ sleep }));
    await primeCache();
    const primed = cachedKeys();

    await connect(port, { id: PROXY_ID });

    expect(controlPlane.kinds(PROXY_ID)).toEqual(['stream-opened', 'registered', 'tick']);
    expect(eventsOf(PROXY_ID, 'registered')).toEqual([
      { kind: 'registered', seq: expect.any(Number), at: expect.any(Number), origin: 'api', created: false, version: created.meta.version },
    ]);
    expect(requested).toEqual([]);
    expect(controlPlane.invalidatedMeshContexts).toEqual([]);
    expect(cachedKeys()).toEqual(primed);
  });

  test('is owned by the API: a proxy bringing another Dataplane under its name is refused, naming the field, and changes nothing', async () => {
    const created = await controlPlane.manager.create(dataplaneInput('default', 'backend-1'));
    const port = await serve(controlPlane.lifecycle({ sleep: recordingSleep().sleep }), { auth: false });

    const refused = await refusedStatus(port, nodeWithDataplane(PROXY_ID, universalDataplane('default', 'backend-1', 'backend', 9999)));

    expect(refused).toMatchObject({
      code: status.PERMISSION_DENIED,
      details:
        'proxy "default.backend-1": Dataplane "backend-1" in mesh "default" was created through the API, and the one in node metadata ' +
        '"dataplane.resource" differs from it at networking.inbound[0].port; change it through the API, or connect without that metadata',
    });
    expect(await controlPlane.manager.get('Dataplane', KEY)).toEqual(created);
  });

  test('a proxy bringing the very same Dataplane (a generated bootstrap) uses it as it is: nothing written, no wait', async () => {
    controlPlane.settings.update({ 'store.cache.expirationTime': LONG_TTL });
    const created = await controlPlane.manager.create(dataplaneInput('default', 'backend-1'));
    const { sleep, requested } = recordingSleep();
    const port = await serve(controlPlane.lifecycle({ sleep }));

    // The same spec, its fields in another order, with labels of its own (the API's stay).
    const { networking } = dataplaneInput('default', 'backend-1').spec;
    await connect(port, nodeWithDataplane(PROXY_ID, { networking: { inbound: networking.inbound, address: networking.address }, labels: { team: 'x' }, name: 'backend-1', mesh: 'default', type: 'Dataplane' }));

    expect(await controlPlane.manager.get('Dataplane', KEY)).toEqual(created);
    expect(eventsOf(PROXY_ID, 'registered')).toEqual([{ kind: 'registered', seq: expect.any(Number), at: expect.any(Number), origin: 'api', created: false, version: 1 }]);
    expect(requested).toEqual([]);
  });

  test('a missing Dataplane does not fail the stream and is not recorded as registered', async () => {
    const port = await serve(controlPlane.lifecycle());

    await connect(port, { id: PROXY_ID });

    expect(controlPlane.kinds(PROXY_ID)).toEqual(['stream-opened', 'tick']);
    expect(eventsOf(PROXY_ID, 'tick')).toEqual([expect.objectContaining({ result: 'dataplane-not-found' })]);
  });
});

describe('deregistration', () => {
  test('deletes the metadata Dataplane once the deregistration delay has passed after its proxy left', async () => {
    controlPlane.settings.update({ 'xds.dataplaneDeregistrationDelay': '20ms' });
    const lifecycle = controlPlane.lifecycle({ sleep: recordingSleep().sleep });
    const port = await serve(lifecycle);
    const client = await connect(port);

    client.close();
    await controlPlane.event(PROXY_ID, 'deregistered');

    await expect(controlPlane.manager.get('Dataplane', KEY)).rejects.toThrow(ResourceNotFoundError);
    expect(controlPlane.kinds(PROXY_ID).slice(-2)).toEqual(['deregistration-scheduled', 'deregistered']);
    expect(lifecycle.pendingDeregistrations()).toEqual([]);
  });

  test('a proxy reconnecting within the delay cancels the deregistration and keeps its Dataplane', async () => {
    controlPlane.settings.update({ 'xds.dataplaneDeregistrationDelay': '1h' });
    const lifecycle = controlPlane.lifecycle({ sleep: recordingSleep().sleep });
    const port = await serve(lifecycle);
    (await connect(port)).close();
    await controlPlane.closed(PROXY_ID);
    expect(lifecycle.pendingDeregistrations()).toEqual([{ proxyId: PROXY_ID, key: KEY, dueAt: expect.any(Number) }]);

    await connect(port);

    expect(lifecycle.pendingDeregistrations()).toEqual([]);
    expect(eventsOf(PROXY_ID, 'registered').map(({ created }) => created)).toEqual([true, false]);
    expect((await controlPlane.manager.get('Dataplane', KEY)).meta.labels).toEqual({ [ORIGIN_LABEL]: PROXY_ORIGIN, ...computedDataplaneLabels() });
  });

  test('at start, schedules the deregistration of proxy-registered Dataplanes an earlier run left behind (a crash)', async () => {
    controlPlane.settings.update({ 'xds.dataplaneDeregistrationDelay': '20ms' });
    const leftover = dataplaneInput('default', 'backend-1');
    await controlPlane.manager.create({ ...leftover, labels: { [ORIGIN_LABEL]: PROXY_ORIGIN } });
    await controlPlane.manager.create(dataplaneInput('default', 'backend-2', 'backend', 18081));
    const lifecycle = controlPlane.lifecycle({ sleep: recordingSleep().sleep });

    await lifecycle.adoptLeftovers();

    expect(lifecycle.pendingDeregistrations()).toEqual([{ proxyId: PROXY_ID, key: KEY, dueAt: expect.any(Number) }]);
    await controlPlane.event(PROXY_ID, 'deregistered');
    expect((await controlPlane.manager.list('Dataplane')).map(({ meta }) => meta.name)).toEqual(['backend-2']);
  });

  test('never deletes a Dataplane created via the API, even when its proxy brings it in its bootstrap', async () => {
    controlPlane.settings.update({ 'xds.dataplaneDeregistrationDelay': '0s' });
    await controlPlane.manager.create(dataplaneInput('default', 'backend-1'));
    await controlPlane.manager.create(dataplaneInput('default', 'backend-2', 'backend', 18081));
    const lifecycle = controlPlane.lifecycle({ sleep: recordingSleep().sleep });
    const port = await serve(lifecycle);
    // backend-1 connects without metadata; backend-2 with a generated bootstrap, which carries its Dataplane.
    (await connect(port, { id: PROXY_ID })).close();
    (await connect(port, nodeWithDataplane('default.backend-2', universalDataplane('default', 'backend-2', 'backend', 18081)))).close();
    await controlPlane.closed(PROXY_ID);
    await controlPlane.closed('default.backend-2');

    expect(lifecycle.pendingDeregistrations()).toEqual([]);
    const remaining = await controlPlane.manager.list('Dataplane');
    expect(remaining.map(({ meta }) => [meta.name, meta.labels])).toEqual([
      ['backend-1', computedDataplaneLabels()],
      ['backend-2', computedDataplaneLabels()],
    ]);
    expect(eventsOf('default.backend-2', 'registered')).toEqual([expect.objectContaining({ origin: 'api', created: false, version: 1 })]);
  });

  test('close deletes at once the Dataplanes waiting for their delay and cancels the timers', async () => {
    controlPlane.settings.update({ 'xds.dataplaneDeregistrationDelay': '1h' });
    const lifecycle = controlPlane.lifecycle({ sleep: recordingSleep().sleep });
    const port = await serve(lifecycle);
    (await connect(port)).close();
    await controlPlane.closed(PROXY_ID);

    await lifecycle.close();

    expect(lifecycle.pendingDeregistrations()).toEqual([]);
    await expect(controlPlane.manager.get('Dataplane', KEY)).rejects.toThrow(ResourceNotFoundError);
    expect(controlPlane.kinds(PROXY_ID).at(-1)).toBe('deregistered');
  });

  test('close cuts a post-create sleep short and refuses later proxies with UNAVAILABLE', async () => {
    controlPlane.settings.update({ 'xds.postCreateStrategy': 'sleep', 'store.cache.expirationTime': LONG_TTL });
    const lifecycle = controlPlane.lifecycle(); // the real sleep, one hour long
    const port = await serve(lifecycle);
    const sleeping = connect(port);
    await controlPlane.event(PROXY_ID, 'registered');

    await lifecycle.close();
    await sleeping;
    const late = await refusedStatus(port, nodeWithDataplane('default.backend-2', universalDataplane('default', 'backend-2')));

    expect(eventsOf(PROXY_ID, 'post-create-wait')).toEqual([
      expect.objectContaining({ strategy: 'sleep', cause: expect.stringMatching(/^cut short by shutdown after [\d.]+ s of 3600.00 s/) }),
    ]);
    expect(late).toMatchObject({ code: status.UNAVAILABLE, details: expect.stringContaining('shutting down') });
  });
});
