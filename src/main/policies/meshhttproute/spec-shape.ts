import { backendRefShape } from '../core/backend-ref.js';
import { headerName, list, object, oneOf, text, type SpecShape } from '../core/spec-shape.js';
import { servedInteger, servedString } from '../core/served-value.js';

// Kuma's schema requires both of a header's fields: Envoy refuses a header without a name.
const header = object({ name: headerName, value: 'string' }, ['name', 'value']);
const headerModifier = (direction: 'request' | 'response') =>
  object({
    set: list(header),
    add: list(header),
    // Kuma takes any text; Envoy removes headers by name, which must not be empty.
    remove: list(servedString(`envoy.config.route.v3.Route.${direction}_headers_to_remove`)),
  });
const pathRewrite = object({ type: 'string', replaceFullPath: 'string', replacePrefixMatch: 'string' }, ['type']);

const match = object({
  path: object({ type: oneOf('Exact', 'PathPrefix', 'RegularExpression'), value: 'string' }, ['type']),
  method: 'string',
  // A match needs the name of what it matches: Envoy refuses a header matcher without one.
  // Kuma's QueryParamsMatch: every field is required (no omitempty), the type one of its enum, the name not empty.
  queryParams: list(object({ type: oneOf('Exact', 'RegularExpression'), name: text({ minLength: 1 }), value: 'string' }, ['type', 'name', 'value'])),
  headers: list(object({ type: 'string', name: headerName, value: 'string' }, ['name'])),
});

const filter = object({
  type: oneOf('RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestRedirect', 'URLRewrite', 'RequestMirror'),
  requestHeaderModifier: headerModifier('request'),
  responseHeaderModifier: headerModifier('response'),
  requestRedirect: object({
    scheme: 'string',
    hostname: 'string',
    path: pathRewrite,
    port: servedInteger('int32', 'envoy.config.route.v3.RedirectAction.port_redirect'),
    statusCode: servedInteger('int64'),
  }),
  urlRewrite: object({ hostname: 'string', path: pathRewrite, hostToBackendHostname: 'boolean' }),
  // k8s IntOrString in Kuma; a decimal string or number here (fractions of a percent).
  requestMirror: object({ percentage: 'int-or-string', backendRef: backendRefShape }, ['backendRef']),
}, ['type']);

/**
 * Kuma's MeshHTTPRoute schema (rest.yaml): each `to` item's hostnames and rules (a route policy has
 * no `default` per item). The schema requires an item's `targetRef` and `rules`, and a rule's
 * `matches` (at least one) and `default`: Kuma refuses a rule without them, so meshdesk does too.
 */
export const meshHTTPRouteSpecShape: SpecShape = object({
  to: list(
    object(
      {
        hostnames: list('string'),
        rules: list(object({ matches: list(match, 1), default: object({ filters: list(filter), backendRefs: list(backendRefShape) }) }, ['default', 'matches'])),
      },
      ['rules', 'targetRef'],
    ),
  ),
});
