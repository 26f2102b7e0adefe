// MeshHTTPRoute's own fields, checked as Kuma's validation.go checks them (paths and messages): each
// `to` item's rules (matches, filters, backendRefs) and hostnames. The targetRefs themselves are
// the shared validator's.
import { isIP } from 'node:net';
import { fieldPath, indexPath } from '../../resources/field-path.js';
import type { ViolationList } from '../../resources/validation-error.js';
import { type BackendRef, validateBackendRef, validateBackendRefs } from '../core/backend-ref.js';
import type { PolicySpec } from '../core/policy.js';
import { checkRe2 } from '../core/re2-syntax.js';
import type { TargetRefKind } from '../core/target-ref.js';
import type { HeaderModifier, HttpFilter, HttpMatch, HttpRouteRule, MeshHTTPRouteConf } from './api.js';

export function validateMeshHTTPRoute(spec: PolicySpec<MeshHTTPRouteConf>, violations: ViolationList): void {
  const topKind = spec.targetRef?.kind ?? 'Mesh';
  (spec.to ?? []).forEach((to, index) => {
    const path = indexPath('spec.to', index);
    ((to.rules ?? []) as HttpRouteRule[]).forEach((rule, ruleIndex) => validateRule(rule, indexPath(fieldPath(path, 'rules'), ruleIndex), topKind, violations));
    const hostnames = (to as { hostnames?: string[] }).hostnames ?? [];
    if (topKind !== 'MeshGateway' && hostnames.length > 0) violations.add(fieldPath(path, 'hostnames'), 'must not be defined');
  });
}

function validateRule(rule: HttpRouteRule, path: string, topKind: TargetRefKind, violations: ViolationList): void {
  (rule.matches ?? []).forEach((match, index) => validateMatch(match, indexPath(fieldPath(path, 'matches'), index), violations));
  const defaultPath = fieldPath(path, 'default');
  const filters = rule.default?.filters;
  filters?.forEach((filter, index) => validateFilter(filter, indexPath(fieldPath(defaultPath, 'filters'), index), topKind, rule.matches ?? [], violations));
  const backendRefs = rule.default?.backendRefs ?? [];
  const backendRefsPath = fieldPath(defaultPath, 'backendRefs');
  // A gateway's rule must send somewhere, unless it redirects.
  if (backendRefs.length === 0 && topKind === 'MeshGateway' && !(filters ?? []).some((filter) => filter.type === 'RequestRedirect')) {
    violations.add(backendRefsPath, 'must not be empty');
  }
  validateBackendRefs(backendRefs, backendRefsPath, violations);
}

function validateMatch(match: HttpMatch, path: string, violations: ViolationList): void {
  if (match.path) {
    const value = fieldPath(fieldPath(path, 'path'), 'value');
    const { type } = match.path;
    const text = match.path.value ?? '';
    if (type === 'PathPrefix' && text !== '/') {
      if (text.endsWith('/')) violations.add(value, 'does not need a trailing slash because only a `/`-separated prefix or an entire path is matched');
      if (!text.startsWith('/')) violations.add(value, 'must be an absolute path');
    }
    if (type === 'Exact' && !text.startsWith('/')) violations.add(value, 'must be an absolute path');
    if (type === 'RegularExpression') checkRe2(text, value, violations);
  }
  const names = new Set<string>();
  (match.queryParams ?? []).forEach((query, index) => {
    if (names.has(query.name)) violations.add(fieldPath(indexPath(fieldPath(path, 'queryParams'), index), 'name'), `multiple entries for name ${query.name}`);
    names.add(query.name);
    if (query.type === 'RegularExpression') checkRe2(query.value, fieldPath(indexPath(fieldPath(path, 'queryParams'), index), 'value'), violations);
  });
  (match.headers ?? []).forEach((header, index) => {
    if ((header.type === 'Present' || header.type === 'Absent') && (header.value ?? '') !== '') {
      violations.add(fieldPath(indexPath(fieldPath(path, 'headers'), index), 'value'), 'must not be defined');
    }
    if (header.type === 'RegularExpression') checkRe2(header.value, fieldPath(indexPath(fieldPath(path, 'headers'), index), 'value'), violations);
  });
}

/** Kuma's hasAnyMatchesWithoutPrefix: a prefix replacement needs every match to be a PathPrefix (no matches is `/`). */
function hasMatchWithoutPrefix(matches: readonly HttpMatch[]): boolean {
  return matches.some((match) => match.path?.type !== 'PathPrefix');
}

function validateFilter(filter: HttpFilter, path: string, topKind: TargetRefKind, matches: readonly HttpMatch[], violations: ViolationList): void {
  const prefixReplacement = (field: string, replacePrefixMatch: string | undefined) => {
    if (replacePrefixMatch !== undefined && hasMatchWithoutPrefix(matches)) {
      violations.add(fieldPath(fieldPath(fieldPath(path, field), 'path'), 'replacePrefixMatch'), 'can only appear if all matches match a path prefix');
    }
  };
  switch (filter.type) {
    case 'RequestHeaderModifier':
    case 'ResponseHeaderModifier': {
      const field = filter.type === 'RequestHeaderModifier' ? 'requestHeaderModifier' : 'responseHeaderModifier';
      const modifier = filter[field];
      if (modifier === undefined) violations.add(fieldPath(path, field), 'must be defined');
      else validateHeaderModifier(modifier, fieldPath(path, field), violations);
      return;
    }
    case 'RequestRedirect': {
      const redirect = filter.requestRedirect;
      if (redirect === undefined) return violations.add(fieldPath(path, 'requestRedirect'), 'must be defined');
      prefixReplacement('requestRedirect', redirect.path?.replacePrefixMatch);
      validatePreciseHostname(redirect.hostname, fieldPath(fieldPath(path, 'requestRedirect'), 'hostname'), violations);
      return;
    }
    case 'URLRewrite': {
      const rewrite = filter.urlRewrite;
      if (rewrite === undefined) return violations.add(fieldPath(path, 'urlRewrite'), 'must be defined');
      prefixReplacement('urlRewrite', rewrite.path?.replacePrefixMatch);
      validatePreciseHostname(rewrite.hostname, fieldPath(fieldPath(path, 'urlRewrite'), 'hostname'), violations);
      if (rewrite.hostToBackendHostname === true) {
        const field = fieldPath(fieldPath(path, 'urlRewrite'), 'hostToBackendHostname');
        if (topKind !== 'MeshGateway') violations.add(field, 'can only be set with MeshGateway');
        if (rewrite.hostname !== undefined) violations.add(field, 'cannot be set together with hostname');
      }
      return;
    }
    case 'RequestMirror': {
      const mirror = filter.requestMirror;
      if (mirror === undefined) return violations.add(fieldPath(path, 'requestMirror'), 'must be defined');
      // Go's zero value when absent: a backendRef without kind ("must be defined").
      validateBackendRef(mirror.backendRef ?? ({} as BackendRef), fieldPath(fieldPath(path, 'requestMirror'), 'backendRef'), violations, ['MeshService', 'MeshServiceSubset']);
      return;
    }
  }
}

/** At least one action, and one action per header name across set, add and remove. */
function validateHeaderModifier(modifier: HeaderModifier, path: string, violations: ViolationList): void {
  if (modifier.set === undefined && modifier.add === undefined && modifier.remove === undefined) {
    violations.add(path, 'must have at least one defined: set, add, remove');
    return;
  }
  const seen = new Set<string>();
  const check = (name: string, at: string) => {
    if (seen.has(name)) violations.add(fieldPath(at, 'name'), 'duplicate header name');
    seen.add(name);
  };
  (modifier.set ?? []).forEach(({ name }, index) => check(name, indexPath(fieldPath(path, 'set'), index)));
  (modifier.add ?? []).forEach(({ name }, index) => check(name, indexPath(fieldPath(path, 'add'), index)));
  (modifier.remove ?? []).forEach((name, index) => check(name, indexPath(fieldPath(path, 'remove'), index)));
}

/** Kubernetes' IsDNS1123Subdomain, which Kuma's PreciseHostname check runs after refusing IP addresses. */
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function validatePreciseHostname(hostname: string | undefined, path: string, violations: ViolationList): void {
  if (hostname === undefined) return;
  if (isIP(hostname) !== 0) return violations.add(path, 'cannot be an IP address');
  if (hostname.length > 253) violations.add(path, 'must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(hostname)) {
    violations.add(
      path,
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
}
