import { status } from '@grpc/grpc-js';
import { describe, expect, test } from 'vitest';
import { CallbacksChain, StreamError, statusOf, type Callbacks, type StreamRequestEvent } from './callbacks.js';

const node = { id: 'default.backend-1' };
const requestEvent: StreamRequestEvent = {
  streamId: 1,
  node,
  request: { version_info: '', resource_names: [], type_url: 'type.googleapis.com/envoy.config.cluster.v3.Cluster', response_nonce: '' },
  classification: { kind: 'initial', typeUrl: 'type.googleapis.com/envoy.config.cluster.v3.Cluster', subscriptionChanged: true, version: '' },
  signal: new AbortController().signal,
};

/** A callback that writes "<name> <hook>" to a shared log. */
function logging(name: string, log: string[], overrides: Callbacks = {}): Callbacks {
  return {
    onStreamOpen: () => void log.push(`${name} open`),
    onStreamRequest: async () => void log.push(`${name} request`),
    onStreamResponse: () => void log.push(`${name} response`),
    onResponseDropped: () => void log.push(`${name} dropped`),
    onStreamClosed: () => void log.push(`${name} closed`),
    ...overrides,
  };
}

describe('CallbacksChain', () => {
  test('runs open and request hooks in list order, response and close hooks in reverse order', async () => {
    const log: string[] = [];
    const chain = new CallbacksChain([logging('lifecycle', log), logging('sync-tracker', log)]);
    await chain.onStreamOpen({ streamId: 1, peer: '127.0.0.1:1', protocol: 'sotw' });
    await chain.onStreamRequest(requestEvent);
    chain.onStreamResponse({ streamId: 1, node, request: undefined, response: { version_info: 'v', resources: [], type_url: '', nonce: '1' }, version: 'v' });
    chain.onStreamClosed({ streamId: 1, node, ending: { by: 'proxy' } });
    expect(log).toEqual([
      'lifecycle open',
      'sync-tracker open',
      'lifecycle request',
      'sync-tracker request',
      'sync-tracker response',
      'lifecycle response',
      'sync-tracker closed',
      'lifecycle closed',
    ]);
  });

  test('waits for each async request hook before running the next', async () => {
    const log: string[] = [];
    const slow: Callbacks = {
      async onStreamRequest() {
        await new Promise((resolve) => setImmediate(resolve));
        log.push('slow done');
      },
    };
    await new CallbacksChain([slow, logging('next', log)]).onStreamRequest(requestEvent);
    expect(log).toEqual(['slow done', 'next request']);
  });

  test('stops at the first request error', async () => {
    const log: string[] = [];
    const failing = logging('auth', log, {
      onStreamRequest: () => Promise.reject(new StreamError(status.PERMISSION_DENIED, 'proxy "default.backend-1" is not allowed')),
    });
    const chain = new CallbacksChain([failing, logging('lifecycle', log)]);
    await expect(chain.onStreamRequest(requestEvent)).rejects.toThrow('proxy "default.backend-1" is not allowed');
    expect(log).toEqual([]);
  });

  test('a throwing close hook does not stop the others; its error comes out afterwards', () => {
    const log: string[] = [];
    const chain = new CallbacksChain([
      logging('lifecycle', log),
      logging('status', log, {
        onStreamClosed: () => {
          throw new Error('status tracker broke');
        },
      }),
    ]);
    expect(() => chain.onStreamClosed({ streamId: 1, node, ending: { by: 'proxy' } })).toThrow('status tracker broke');
    expect(log).toEqual(['lifecycle closed']);
  });
});

describe('statusOf', () => {
  test('a StreamError keeps its gRPC code and message; any other error is INTERNAL', () => {
    expect(statusOf(new StreamError(status.ALREADY_EXISTS, 'proxy "default.a" is already connected'))).toEqual({
      code: status.ALREADY_EXISTS,
      details: 'proxy "default.a" is already connected',
    });
    expect(statusOf(new Error('database is locked'))).toEqual({ code: status.INTERNAL, details: 'database is locked' });
  });
});
