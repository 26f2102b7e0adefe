import { describe, expect, it } from 'vitest';
import { ADMIN_PORT_RANGE, adminPortOf, type KnownDataplane } from './admin-port.js';

function dataplane(name: string, seconds: number, networking: Partial<KnownDataplane['networking']> = {}): KnownDataplane {
  return { mesh: 'default', name, creationTime: new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString(), networking: { address: '127.0.0.1', ...networking } };
}

const fleet = Array.from({ length: 300 }, (_, index) => dataplane(`app-${index}`, index));

describe('the default Envoy admin port of a Dataplane', () => {
  it('is the Dataplane\'s networking.admin.port when it sets one, 9901 included', () => {
    expect(adminPortOf(dataplane('web-1', 0, { admin: { port: 9901 } }), fleet)).toBe(9901);
  });

  it('is in the range, never 9901, and the same every time it is asked', () => {
    const port = adminPortOf(dataplane('web-1', 0), fleet);
    expect(port).toBeGreaterThanOrEqual(ADMIN_PORT_RANGE.first);
    expect(port).toBeLessThanOrEqual(ADMIN_PORT_RANGE.last);
    expect(port).not.toBe(9901);
    expect(adminPortOf(dataplane('web-1', 0), [...fleet].reverse())).toBe(port);
  });

  it('differs between every two Dataplanes meshdesk knows, however many hash to the same slot', () => {
    const ports = fleet.map((each) => adminPortOf(each, fleet));
    expect(new Set(ports).size).toBe(fleet.length);
  });

  it('stays put for older Dataplanes when a newer one comes', () => {
    const before = fleet.map((each) => adminPortOf(each, fleet));
    const newcomers = Array.from({ length: 50 }, (_, index) => dataplane(`late-${index}`, 1000 + index));
    const after = fleet.map((each) => adminPortOf(each, [...fleet, ...newcomers]));
    expect(after).toEqual(before);
  });

  it("avoids another Dataplane's explicit admin port and its inbound, service and outbound ports", () => {
    const web = dataplane('web-1', 5);
    const slot = adminPortOf(web, []);
    for (const other of [
      dataplane('other', 9, { admin: { port: slot } }),
      dataplane('other', 9, { inbound: [{ port: slot, tags: { 'kuma.io/service': 'x' } }] }),
      dataplane('other', 9, { inbound: [{ port: 18080, servicePort: slot, tags: { 'kuma.io/service': 'x' } }] }),
      dataplane('other', 9, { outbound: [{ port: slot, tags: { 'kuma.io/service': 'x' } }] }),
    ]) {
      expect(adminPortOf(web, [web, other])).not.toBe(slot);
    }
  });

  it('counts a Dataplane not stored yet as the newest, and a stored one by its stored age', () => {
    const stored = fleet.slice(0, 100);
    const preview = { ...fleet[50]!, creationTime: undefined };
    expect(adminPortOf(preview, stored)).toBe(adminPortOf(fleet[50]!, stored));
  });
});
