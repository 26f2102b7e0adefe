import { describe, expect, it } from 'vitest';
import { CATCH_ALL_ROUTE_MATCHES, routeMatchesName, sanitizeMetric } from './names.js';

describe('resource names', () => {
  it("names the catch-all outbound route as Kuma's MeshHTTPRoute does", () => {
    // The name in Kuma v2.14.3's default-route golden and in every running kuma-cp's HTTP outbound.
    expect(routeMatchesName(CATCH_ALL_ROUTE_MATCHES)).toBe('9Zuf5Tg79OuZcQITwBbQykxAk2u4fRKrwYn3//AL4Yo=');
  });

  it('sanitizes metric names as Kuma does: anything outside [a-zA-Z0-9_-] becomes _', () => {
    expect(sanitizeMetric('localhost:8080')).toBe('localhost_8080');
    expect(sanitizeMetric('web.default-svc_1')).toBe('web_default-svc_1');
  });
});
