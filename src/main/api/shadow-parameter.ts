import { ApiError } from './api-error.js';

/** Go's strconv.ParseBool, which Kuma reads `shadow` with. */
const BOOLEANS: Readonly<Record<string, boolean>> = {
  '1': true, t: true, T: true, TRUE: true, true: true, True: true,
  '0': false, f: false, F: false, FALSE: false, false: false, False: false,
};

/**
 * `?shadow=true`: answer with the shadow policies (`kuma.io/effect: shadow`) applied as if live.
 * Absent or empty is false; anything strconv.ParseBool refuses is Kuma's 400.
 */
export function readShadowParameter(query: URLSearchParams): boolean {
  const value = query.get('shadow');
  if (value === null || value === '') return false;
  const shadow = BOOLEANS[value];
  if (shadow === undefined) throw new ApiError(400, 'Bad Request', "bad request: unsupported value for query parameter 'shadow'");
  return shadow;
}
