import { afterAll, afterEach, beforeAll, expect, inject, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Core } from '../../../src/main/core.js';
import { startTestCore } from '../../support/core.js';
import { applyDataplane, backendDataplane } from '../../support/dataplanes.js';
import { startEchoServer, type EchoServer } from '../../support/echo-server.js';
import { launchChromium, openUi, type UiPage } from './browser.js';
import { callerSpec, connectGrpcProxy, type GrpcProxyOptions } from './grpc-proxy.js';

/**
 * One Chromium per test file, one real core per test, pages that fail the test on any console
 * error, and grpc-js-xds proxies closed after each test.
 */
export function useUi() {
  // The core's /gui serves the build made for the tests (see build-renderer.ts).
  process.env.MESHDESK_RENDERER_DIR = inject('rendererDir');
  // A browser, a core and real xDS clients per test on a shared 2-core machine: generous bounds, nothing timed.
  vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });
  let browser: Browser;
  const pages: UiPage[] = [];
  const cleanups: Array<() => unknown> = [];

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());
  afterEach(async () => {
    for (const { context } of pages) await context.close();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    // Checked after closing: an error logged while the test ran must not pass silently.
    const errors = pages.splice(0).flatMap((page) => page.errors.filter((error) => !page.expected.some((expected) => expected(error))));
    expect(errors, 'the page logged errors').toEqual([]);
  });

  function connect(core: Core, options: Omit<GrpcProxyOptions, 'adsPort'>) {
    const token = core.xds.dataplaneTokens.tokenFor({ mesh: options.mesh ?? 'default', name: options.name });
    const proxy = connectGrpcProxy({ adsPort: core.xds.port, token, ...options });
    cleanups.push(() => proxy.close());
    return proxy;
  }

  return {
    /** A core (on `dataDir`, else a fresh one) that regenerates quickly, so tests wait on events rather than on the 1 s defaults. */
    async core(dataDir?: string): Promise<Core> {
      const core = await startTestCore(dataDir);
      core.settings.update({ 'store.cache.expirationTime': '100ms', 'xds.dataplaneConfigurationRefreshInterval': '100ms' });
      return core;
    },
    async open(
      core: Core,
      hash = '#/proxies',
      options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
    ): Promise<UiPage> {
      const ui = await openUi(browser, core.api.url, { hash, ...options });
      ui.context.setDefaultTimeout(20_000);
      pages.push(ui);
      return ui;
    },
    connect,
    /** echo-1 served by a real echo server, and frontend-1, a real grpc-js-xds proxy calling it that registers its own Dataplane. */
    async frontendCallingEcho(core: Core): Promise<EchoServer> {
      const backend = await startEchoServer('echo-1');
      cleanups.push(() => backend.stop());
      await applyDataplane(core, backendDataplane('echo-1', backend.port));
      connect(core, { name: 'frontend-1', target: 'echo', register: callerSpec('frontend') });
      return backend;
    },
  };
}
