import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { MeshResource } from '../../../shared/resources.js';
import { buildMeshContext } from './build-mesh-context.js';
import { besideOf, canonical, carriedMemo, follows, jsonWithMaps } from './carried-memo.js';

const TIME = '2026-01-01T00:00:00.000Z';
const mesh = (name: string): MeshResource => ({ type: 'Mesh', meta: { mesh: '', name, version: 1, creationTime: TIME, modificationTime: TIME, labels: {} }, spec: {} });
const contextOf = (name: string) => buildMeshContext(mesh(name), []);
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const memoOf = (context: ReturnType<typeof contextOf>) => carriedMemo<string, object>(context, 'test', () => new Map());

describe('carriedMemo', () => {
  it('carries to the context that follows only what that context asks for again', () => {
    const first = contextOf('carried');
    const kept = { kept: true };
    memoOf(first).set('kept', kept);
    memoOf(first).set('dropped', { dropped: true });

    const second = follows(contextOf('carried'), first);
    expect(memoOf(second).get('kept')).toBe(kept);

    const third = follows(contextOf('carried'), second);
    expect(memoOf(third).get('kept')).toBe(kept);
    // Not asked for by the second context: gone with the first, however long the mesh lives.
    expect(memoOf(third).get('dropped')).toBeUndefined();
  });

  it('lets a context beside the ticks (a policy preview) carry, without ending what the tick carries from', () => {
    const before = contextOf('previewed');
    memoOf(before).set('not previewed', { also: 'kept' });
    const tick = follows(contextOf('previewed'), before);
    const kept = { kept: true };
    memoOf(tick).set('kept', kept);

    const preview = besideOf(contextOf('previewed'), tick);
    expect(memoOf(preview).get('kept')).toBe(kept);
    expect(memoOf(tick).get('not previewed')).toEqual({ also: 'kept' });
  });

  it('holds two contexts: once a context follows, the one before lets go of what it carried from', () => {
    const first = contextOf('two contexts');
    const value = { first: true };
    memoOf(first).set('key', value);
    const second = follows(contextOf('two contexts'), first);
    expect(memoOf(second).previous('key')).toBe(value);

    follows(contextOf('two contexts'), second);
    expect(memoOf(second).previous('key')).toBeUndefined();
  });

  it('keeps a context nobody follows by nothing (a deleted mesh, a benchmark round)', async () => {
    let collected = false;
    const registry = new FinalizationRegistry(() => (collected = true));
    (() => {
      const context = contextOf('deleted');
      memoOf(context).set('key', { value: 1 });
      registry.register(context, 'context');
    })();
    for (let turn = 0; turn < 5 && !collected; turn++) {
      // A later turn: what a turn touched is no longer kept alive for it, and finalizers run.
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(collected).toBe(true);
  });

  it('carries nothing to a context that follows none, nor between memo names', () => {
    const one = contextOf('mesh-one');
    memoOf(one).set('key', { mesh: 'one' });

    expect(memoOf(contextOf('mesh-one')).get('key')).toBeUndefined();
    expect(carriedMemo<string, object>(follows(contextOf('mesh-one'), one), 'another memo', () => new Map()).get('key')).toBeUndefined();
  });

  it('reads the previous context alone without carrying it, for callers that carry parts', () => {
    const first = contextOf('parts');
    memoOf(first).set('tree', { branch: 1 });
    const second = follows(contextOf('parts'), first);

    expect(memoOf(second).current('tree')).toBeUndefined();
    expect(memoOf(second).previous('tree')).toEqual({ branch: 1 });
    expect(memoOf(follows(contextOf('parts'), second)).get('tree')).toBeUndefined();
  });
});

describe('canonical', () => {
  it("gives the previous context's object for equal content, and a new one for different content", () => {
    const before = { cluster: 'backend', timeout: '5s' };
    const first = contextOf('canonical');
    expect(canonical(first, 'cluster', before)).toBe(before);

    const next = follows(contextOf('canonical'), first);
    expect(canonical(next, 'cluster', { cluster: 'backend', timeout: '5s' })).toBe(before);
    const changed = { cluster: 'backend', timeout: '6s' };
    expect(canonical(next, 'cluster', changed)).toBe(changed);
    expect(canonical(contextOf('other mesh'), 'cluster', { cluster: 'backend', timeout: '5s' })).not.toBe(before);
  });

  it('tells apart values that differ only inside a Map, with jsonWithMaps', () => {
    const context = contextOf('maps');
    canonical(context, 'rules', { originByMatches: new Map([['a', 'policy-1']]) }, jsonWithMaps);

    const second = { originByMatches: new Map([['a', 'policy-2']]) };
    expect(canonical(follows(contextOf('maps'), context), 'rules', second, jsonWithMaps)).toBe(second);
  });
});
