import { list, object, type SpecShape } from '../core/spec-shape.js';

/** Kuma's common Match: a caller by SPIFFE ID or SNI. */
const typedValue = object({ type: 'string', value: 'string' });
const matches = list(object({ spiffeID: typedValue, sni: typedValue }));

/**
 * Kuma's MeshTrafficPermission schema (rest.yaml). Its sections' defaults differ: a `from` item's is
 * its Conf (one action), a `rules` item's its RuleConf (the callers each action applies to).
 */
export const meshTrafficPermissionSpecShape: SpecShape = object({
  from: list(object({ default: object({ action: 'string' }) })),
  rules: list(object({ default: object({ deny: matches, allowWithShadowDeny: matches, allow: matches }) }, ['default'])),
});
