import { describe, expect, it } from 'vitest';
import { markOf } from './timeline-lanes.js';

describe('markOf', () => {
  it('labels a generating tick with its work, and the wait before it in plain words when it lasted a millisecond or more', () => {
    expect(markOf({ kind: 'tick', at: 10, result: 'changed', durationMs: 1.5, queuedMs: 300 }).label).toMatch(
      /^generation: changed in 1\.50\s?ms, after 300\s?ms waiting for its mesh's view and its turn to run$/,
    );
    expect(markOf({ kind: 'tick', at: 10, result: 'changed', durationMs: 1.5, queuedMs: 0.112 }).label).toMatch(/^generation: changed in 1\.50\s?ms$/);
    expect(markOf({ kind: 'tick', at: 10, result: 'skip', durationMs: 0.01 }).label).not.toContain('waiting');
    expect(markOf({ kind: 'tick', at: 10, result: 'changed', durationMs: 1.5, queuedMs: 2, certificate: { startedAt: 5, durationMs: 400 } }).label).toMatch(
      /waiting for its mesh's view and its turn to run; its identity certificate was issued first, in 400\s?ms$/,
    );
  });

  it('marks a restart, saying the events above it are from before', () => {
    expect(markOf({ kind: 'restarted', at: Date.UTC(2026, 0, 2, 3, 4, 5) }).label).toMatch(/^meshdesk restarted at .*: the events above are from before the restart$/);
  });

  it('draws a closed stream, a refusal and a NACK each with its own glyph, and says what the proxy was told', () => {
    const closed = markOf({ kind: 'stream-closed', at: 1, streamId: 3, ending: { by: 'proxy' } });
    const refused = markOf({
      kind: 'stream-closed',
      at: 1,
      streamId: 4,
      ending: { by: 'control-plane', code: 3, codeName: 'INVALID_ARGUMENT', message: 'bad port' },
    });
    const nack = markOf({ kind: 'nack', at: 1, typeUrl: 'type.googleapis.com/envoy.config.cluster.v3.Cluster', version: 'v', nonce: '1', error: 'x' });
    expect(new Set([closed.style, refused.style, nack.style]).size).toBe(3);
    expect(refused.label).toBe('stream 4 ended by meshdesk with INVALID_ARGUMENT: bad port');
  });

  it('draws a stream meshdesk ended because it stopped as closed, not as a refusal', () => {
    const stopped = markOf({
      kind: 'stream-closed',
      at: 1,
      streamId: 5,
      ending: { by: 'control-plane', code: 14, codeName: 'UNAVAILABLE', message: 'control plane shutting down', shutdown: true },
    });
    expect(stopped.style).toBe('closed');
    expect(stopped.label).toBe('stream 5 ended: meshdesk stopped');
  });
});
