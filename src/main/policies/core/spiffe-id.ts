// SPIFFE IDs as go-spiffe's spiffeid.FromString reads them: Kuma reports its error text as it is.

const SCHEME_PREFIX = 'spiffe://';
const TRUST_DOMAIN_CHAR = /^[a-z0-9._-]$/;
const PATH_SEGMENT_CHAR = /^[a-zA-Z0-9._-]$/;

/** Why `text` is not a SPIFFE ID (go-spiffe's message), or undefined when it is one. */
export function spiffeIdError(text: string): string | undefined {
  if (text === '') return 'cannot be empty';
  if (!text.startsWith(SCHEME_PREFIX)) return 'scheme is missing or invalid';
  const rest = text.slice(SCHEME_PREFIX.length);
  const slash = rest.indexOf('/');
  const trustDomain = slash === -1 ? rest : rest.slice(0, slash);
  for (const char of trustDomain) {
    if (!TRUST_DOMAIN_CHAR.test(char)) return 'trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores';
  }
  if (trustDomain === '') return 'trust domain is missing';
  return slash === -1 ? undefined : pathError(rest.slice(slash));
}

/** go-spiffe's ValidatePath, for a path that starts with `/`. */
function pathError(path: string): string | undefined {
  const segments = path.slice(1).split('/');
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === '') return last ? 'path cannot have a trailing slash' : 'path cannot contain empty segments';
    if (segment === '.' || segment === '..') return 'path cannot contain dot segments';
    for (const char of segment) {
      if (!PATH_SEGMENT_CHAR.test(char)) return 'path segment characters are limited to letters, numbers, dots, dashes, and underscores';
    }
  }
  return undefined;
}
