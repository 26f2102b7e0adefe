// Field paths as Kuma prints them in violations: `networking.inbound[0].tags["kuma.io/service"]`.

const PLAIN_FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `parent.name`; a name that is not a plain identifier (an unknown field such as `a.b`) is quoted as a key. */
export function fieldPath(parent: string, name: string): string {
  if (!PLAIN_FIELD_NAME.test(name)) return keyPath(parent, name);
  return parent === '' ? name : `${parent}.${name}`;
}

/** `parent[index]` */
export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

/** `parent["key"]`, for map entries such as tags and labels. */
export function keyPath(parent: string, key: string): string {
  return `${parent}[${JSON.stringify(key)}]`;
}

/** Roots a relative path (`port`, `[0].port`, or '' for the prefix itself) under `prefix`. */
export function joinPath(prefix: string, relative: string): string {
  if (prefix === '') return relative;
  if (relative === '') return prefix;
  return relative.startsWith('[') ? `${prefix}${relative}` : `${prefix}.${relative}`;
}
