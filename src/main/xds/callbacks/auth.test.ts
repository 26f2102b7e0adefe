import { status } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { AuthCallbacks } from './auth.js';
import { adaptProxyCallbacks } from './proxy-callbacks-adapter.js';
import { TestControlPlane, nodeWithDataplane, universalDataplane } from './testing/control-plane.js';
import { recordingSleep } from './testing/sleeps.js';

const PROXY_ID = 'default.backend-1';

let controlPlane: TestControlPlane;
let port: number;

beforeEach(async () => {
  controlPlane = await TestControlPlane.start();
  const lifecycle = controlPlane.lifecycle({ sleep: recordingSleep().sleep });
  port = await controlPlane.serve([new AuthCallbacks(), adaptProxyCallbacks(lifecycle)]);
});

afterEach(async () => {
  await controlPlane.close();
});

describe('auth: one live stream per node id', () => {
  test('refuses a second stream with the node id of a live proxy with ALREADY_EXISTS, and keeps serving the first', async () => {
    const first = controlPlane.proxy(port, { id: PROXY_ID });
    await first.barrier();

    const second = controlPlane.proxy(port, { id: PROXY_ID });
    void second.barrier();
    const closed = await second.status;

    expect(closed.code).toBe(status.ALREADY_EXISTS);
    expect(closed.details).toMatch(
      /^proxy default\.backend-1 is already connected on another stream \(opened \d\d:\d\d:\d\d from 127\.0\.0\.1:\d+\)/,
    );
    expect(await first.barrier()).toEqual([]);
    // The refused stream never reached the lifecycle: the live proxy's timeline is untouched.
    expect(controlPlane.kinds(PROXY_ID)).toEqual(['stream-opened']);
  });

  test('releases the node id when its stream closes', async () => {
    const first = controlPlane.proxy(port, { id: PROXY_ID });
    await first.barrier();
    first.close();
    await controlPlane.closed(PROXY_ID);

    const again = controlPlane.proxy(port, { id: PROXY_ID });

    expect(await again.barrier()).toEqual([]);
  });

  test('releases the node id of a stream that a later callback refused', async () => {
    const invalid = controlPlane.proxy(port, nodeWithDataplane(PROXY_ID, universalDataplane('default', 'someone-else')));
    void invalid.barrier();
    expect((await invalid.status).code).toBe(status.INVALID_ARGUMENT);

    const valid = controlPlane.proxy(port, nodeWithDataplane(PROXY_ID, universalDataplane('default', 'backend-1')));

    expect(await valid.barrier()).toEqual([]);
  });

  test('lets different node ids connect side by side', async () => {
    const backend = controlPlane.proxy(port, { id: PROXY_ID });
    const web = controlPlane.proxy(port, { id: 'default.web-1' });

    expect(await Promise.all([backend.barrier(), web.barrier()])).toEqual([[], []]);
  });
});
