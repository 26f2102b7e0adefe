// A rule's match (Kuma's `rules[].matches[]` and MeshTrafficPermission's allow/deny entries): read
// as Go's types have it, and checked as Kuma's ValidateMatch does.
import { fieldPath, joinPath } from '../../resources/field-path.js';
import type { ViolationList } from '../../resources/validation-error.js';
import { readObject, readString } from './json-readers.js';
import type { RuleMatch } from './policy.js';
import { spiffeIdError } from './spiffe-id.js';

/** The fields Kuma's Go types have; any other is dropped, as Go's JSON decoding does. */
const MATCH_FIELDS = ['spiffeID', 'sni'] as const;

/** Kuma's ValidateMatch: a spiffeID must parse as a SPIFFE ID; an sni is an Exact RFC 1123 subdomain. */
export function checkMatch(match: RuleMatch, path: string, violations: ViolationList): void {
  if (match.spiffeID !== undefined) {
    const error = spiffeIdError(match.spiffeID.value ?? '');
    if (error) violations.add(joinPath(path, 'spiffeID'), `must be a valid Spiffe ID: ${error}`);
  }
  if (match.sni !== undefined) {
    const type = match.sni.type as string | undefined;
    if (!type) violations.add(joinPath(path, 'sni.type'), 'must be set');
    else if (type !== 'Exact') violations.add(joinPath(path, 'sni.type'), `unrecognized type ${JSON.stringify(type)}, supported values are: Exact`);
    const value = match.sni.value ?? '';
    if (value === '') violations.add(joinPath(path, 'sni.value'), 'must be set');
    else for (const message of dns1123SubdomainErrors(value)) violations.add(joinPath(path, 'sni.value'), message);
  }
}

const DNS_1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Kubernetes' IsDNS1123Subdomain messages. */
function dns1123SubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 253) errors.push('must be no more than 253 characters');
  if (!DNS_1123_SUBDOMAIN.test(value)) {
    errors.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
        "(e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return errors;
}

/** A match given inside a type's own conf (MeshTrafficPermission's `allow`/`deny` lists), read as `rules[].matches` are. */
export function readRuleMatch(value: unknown, path: string, violations: ViolationList): RuleMatch | undefined {
  const match = readObject(value, path, violations);
  return match && readMatch(match, path, violations);
}

export function readMatch(match: Record<string, unknown>, path: string, violations: ViolationList): RuleMatch {
  const result: Record<string, unknown> = {};
  for (const field of MATCH_FIELDS) {
    const part = readObject(match[field], fieldPath(path, field), violations);
    if (part === undefined) continue;
    const read: Record<string, string> = {};
    for (const key of ['type', 'value']) {
      const text = readString(part[key], joinPath(fieldPath(path, field), key), violations);
      if (text !== undefined) read[key] = text;
    }
    result[field] = read;
  }
  return result as RuleMatch;
}
