import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { template } from './resource-text.js';

const dataplane = (mesh: string, name: string, networking: object) => ({ type: 'Dataplane', mesh, name, networking });

describe('the New Dataplane template', () => {
  it('proposes a service and ports no Dataplane uses, in its mesh or another on the same host', () => {
    const existing = {
      meshes: [],
      dataplanes: [
        dataplane('default', 'backend-1', {
          address: '127.0.0.1',
          inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'backend' } }],
          outbound: [{ port: 10001, tags: { 'kuma.io/service': 'web' } }],
          admin: { port: 18082 },
        }),
        dataplane('default', 'web-1', { address: '127.0.0.1', inbound: [{ port: 18081, servicePort: 8081, tags: { 'kuma.io/service': 'backend-2' } }] }),
        // Another mesh, the same laptop: its ports are taken too.
        dataplane('payments', 'ledger-1', { address: '127.0.0.1', inbound: [{ port: 18083, servicePort: 8082, tags: { 'kuma.io/service': 'ledger' } }], outbound: [{ port: 10002 }] }),
      ],
    };
    const proposed = parse(template('Dataplane', 'default', existing));
    // backend-2 is free as a name, but its service is web-1's.
    expect(proposed.name).toBe('backend-3');
    const inbound = proposed.networking.inbound[0];
    expect(inbound.tags['kuma.io/service']).toBe('backend-3');
    expect(inbound.port).toBe(18084);
    expect(inbound.servicePort).toBe(8083);
    expect(proposed.networking.outbound[0].port).toBe(10003);
  });

  it('keeps the plain names and first ports in an empty mesh', () => {
    const proposed = parse(template('Dataplane', 'default', { meshes: [], dataplanes: [] }));
    expect(proposed).toMatchObject({ name: 'backend-1', networking: { inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'backend' } }], outbound: [{ port: 10001 }] } });
  });
});
