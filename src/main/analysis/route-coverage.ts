// Whether every request one MeshHTTPRoute match accepts is accepted by another: the earlier of the
// two then takes all of the later one's traffic. Conservative: "no" whenever it cannot be told
// (regular expressions, distinct header types), so a finding is never a guess.
import type { HeaderMatch, HttpMatch, PathMatch, QueryParamsMatch } from '../policies/meshhttproute/api.js';

/** True when every request `inner` matches is matched by `outer` too (paths as Kuma generates them: segment-aware prefixes). */
export function matchCovers(outer: HttpMatch & { path: PathMatch }, inner: HttpMatch & { path: PathMatch }): boolean {
  return (
    pathCovers(outer.path, inner.path) &&
    (outer.method === undefined || outer.method === inner.method) &&
    (outer.headers ?? []).every((header) => (inner.headers ?? []).some((other) => headerImplies(other, header))) &&
    (outer.queryParams ?? []).every((query) => (inner.queryParams ?? []).some((other) => sameQuery(other, query)))
  );
}

function pathCovers(outer: PathMatch, inner: PathMatch): boolean {
  if (outer.type === 'PathPrefix' && outer.value === '/') return true;
  if (outer.type === 'RegularExpression' || inner.type === 'RegularExpression') return outer.type === inner.type && outer.value === inner.value;
  if (outer.type === 'Exact') return inner.type === 'Exact' && inner.value === outer.value;
  // Kuma's PathPrefix /api is Envoy's path /api plus prefix /api/: /apix is not under it.
  const base = outer.value.replace(/\/+$/, '');
  return inner.value === base || inner.value.startsWith(`${base}/`);
}

/** A request that satisfies `given` satisfies `required`. */
function headerImplies(given: HeaderMatch, required: HeaderMatch): boolean {
  if (given.name.toLowerCase() !== required.name.toLowerCase()) return false;
  const givenType = given.type ?? 'Exact';
  const requiredType = required.type ?? 'Exact';
  if (requiredType === 'Present') return givenType !== 'Absent';
  return givenType === requiredType && given.value === required.value;
}

function sameQuery(a: QueryParamsMatch, b: QueryParamsMatch): boolean {
  return a.name === b.name && a.type === b.type && a.value === b.value;
}
