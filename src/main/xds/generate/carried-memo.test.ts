import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { MeshResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../context/build-mesh-context.js';
import { besideTheTicks, canonical, carriedMemo, jsonWithMaps } from './carried-memo.js';

const TIME = '2026-01-01T00:00:00.000Z';
const mesh = (name: string): MeshResource => ({ type: 'Mesh', meta: { mesh: '', name, version: 1, creationTime: TIME, modificationTime: TIME, labels: {} }, spec: {} });
const contextOf = (name: string) => buildMeshContext(mesh(name), []);
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const memoOf = (context: ReturnType<typeof contextOf>) => carriedMemo<string, object>(context, 'test', () => new Map());

describe('carriedMemo', () => {
  it("carries to a mesh's next context only what that context asks for again", () => {
    const first = contextOf('carried');
    const kept = { kept: true };
    memoOf(first).set('kept', kept);
    memoOf(first).set('dropped', { dropped: true });

    const second = contextOf('carried');
    expect(memoOf(second).get('kept')).toBe(kept);

    const third = contextOf('carried');
    expect(memoOf(third).get('kept')).toBe(kept);
    // Not asked for by the second context: gone with the first, however long the mesh lives.
    expect(memoOf(third).get('dropped')).toBeUndefined();
  });

  it('lets a context beside the ticks (a policy preview) carry, without displacing the last tick', () => {
    const tick = contextOf('previewed');
    const kept = { kept: true };
    memoOf(tick).set('kept', kept);
    memoOf(tick).set('not previewed', { also: 'kept' });

    const preview = besideTheTicks(contextOf('previewed'));
    expect(memoOf(preview).get('kept')).toBe(kept);

    expect(memoOf(contextOf('previewed')).get('not previewed')).toEqual({ also: 'kept' });
  });

  it('carries from a context nobody holds any more (the cache drops it when it builds the next)', async () => {
    const kept = { kept: true };
    (() => memoOf(contextOf('dropped by the cache')).set('kept', kept))();
    // A later turn, as a proxy's tick is: what a turn touched is no longer kept alive for it.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();

    expect(memoOf(contextOf('dropped by the cache')).get('kept')).toBe(kept);
  });

  it('holds two contexts: once a newer one exists, the previous one lets go of what it carried from', () => {
    const first = contextOf('two contexts');
    const value = { first: true };
    memoOf(first).set('key', value);
    const second = memoOf(contextOf('two contexts'));
    expect(second.previous('key')).toBe(value);

    memoOf(contextOf('two contexts'));
    expect(second.previous('key')).toBeUndefined();
  });

  it('keeps meshes and memo names apart', () => {
    const one = contextOf('mesh-one');
    memoOf(one).set('key', { mesh: 'one' });

    expect(memoOf(contextOf('mesh-two')).get('key')).toBeUndefined();
    expect(carriedMemo<string, object>(contextOf('mesh-one'), 'another memo', () => new Map()).get('key')).toBeUndefined();
  });

  it('reads the previous context alone without carrying it, for callers that carry parts', () => {
    const first = contextOf('parts');
    memoOf(first).set('tree', { branch: 1 });
    const second = contextOf('parts');

    expect(memoOf(second).current('tree')).toBeUndefined();
    expect(memoOf(second).previous('tree')).toEqual({ branch: 1 });
    expect(memoOf(contextOf('parts')).get('tree')).toBeUndefined();
  });
});

describe('canonical', () => {
  it("gives the previous context's object for equal content, and a new one for different content", () => {
    const before = { cluster: 'backend', timeout: '5s' };
    expect(canonical(contextOf('canonical'), 'cluster', before)).toBe(before);

    const next = contextOf('canonical');
    expect(canonical(next, 'cluster', { cluster: 'backend', timeout: '5s' })).toBe(before);
    const changed = { cluster: 'backend', timeout: '6s' };
    expect(canonical(next, 'cluster', changed)).toBe(changed);
    expect(canonical(contextOf('other mesh'), 'cluster', { cluster: 'backend', timeout: '5s' })).not.toBe(before);
  });

  it('tells apart values that differ only inside a Map, with jsonWithMaps', () => {
    const first = { originByMatches: new Map([['a', 'policy-1']]) };
    canonical(contextOf('maps'), 'rules', first, jsonWithMaps);

    const second = { originByMatches: new Map([['a', 'policy-2']]) };
    expect(canonical(contextOf('maps'), 'rules', second, jsonWithMaps)).toBe(second);
  });
});
