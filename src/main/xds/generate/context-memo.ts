import type { MeshContext } from '../context/mesh-context.js';

const memos = new WeakMap<MeshContext, Map<string, unknown>>();

/**
 * What `build` returns for this context and key, built once and shared by every proxy generated
 * from the same context: a service's endpoints and cluster are the same for all its clients.
 * Sharing the very object also lets the encoded-resource cache find its bytes by identity.
 *
 * A MeshContext is immutable and the cache hands out the same object while its input hash is
 * unchanged, so a memo lives exactly as long as its inputs do and goes with its context.
 * `key` must name everything `build` reads besides the context.
 */
export function memoizedForContext<T>(context: MeshContext, key: string, build: () => T): T {
  let memo = memos.get(context);
  if (!memo) memos.set(context, (memo = new Map()));
  if (memo.has(key)) return memo.get(key) as T;
  const value = build();
  memo.set(key, value);
  return value;
}
