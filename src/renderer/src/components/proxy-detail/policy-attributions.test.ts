import { describe, expect, it } from 'vitest';
import type { PolicyOrigin } from '../../../../shared/policy-types.js';
import { attributionsByResource } from './policy-attributions.js';

const ROUTE = 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration';
const origin = (name: string, item = 'spec.to[0]'): PolicyOrigin => ({ type: 'MeshTimeout', mesh: 'default', name, item });

describe('policy attributions for the Config tree', () => {
  it('indexes each field by resource id and path, with every branch above it, a later entry winning', () => {
    const byResource = attributionsByResource({
      proxyId: 'default.web-1',
      versions: {},
      unapplied: [],
      attributions: [
        { typeUrl: ROUTE, resource: 'echo', path: 'virtual_hosts[0].routes[1].route.timeout', origins: [origin('first')] },
        { typeUrl: ROUTE, resource: 'echo', path: 'virtual_hosts[0].routes[1].route.timeout', origins: [origin('all'), origin('echo-only')] },
      ],
    });

    const echo = byResource.get('rds/echo')!;
    expect([...echo.at]).toEqual([['virtual_hosts[0].routes[1].route.timeout', [origin('all'), origin('echo-only')]]]);
    expect([...echo.within]).toEqual(['virtual_hosts', 'virtual_hosts[0]', 'virtual_hosts[0].routes', 'virtual_hosts[0].routes[1]', 'virtual_hosts[0].routes[1].route']);
    expect(byResource.has('cds/echo')).toBe(false);
  });
});
