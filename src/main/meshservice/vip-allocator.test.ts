import { describe, expect, it } from 'vitest';
import { VipAllocator, vipsOf, withVip } from './vip-allocator.js';

describe('VipAllocator', () => {
  it('hands out each kind’s /8 in order from the network address', () => {
    const vips = new VipAllocator();
    expect([vips.allocate('MeshService'), vips.allocate('MeshService')]).toEqual(['241.0.0.0', '241.0.0.1']);
    expect(vips.allocate('MeshExternalService')).toBe('242.0.0.0');
    expect(vips.allocate('MeshMultiZoneService')).toBe('243.0.0.0');
  });

  it('never gives again what the store held at start, nor what it gave, and ignores addresses outside the range', () => {
    const vips = new VipAllocator();
    vips.seed([
      { type: 'MeshService', status: { vips: [{ ip: '241.0.0.0' }] } },
      { type: 'MeshService', status: { vips: [{ ip: '241.0.0.2' }] } },
      { type: 'MeshService', status: { vips: [{ ip: '10.0.0.1' }] } },
      { type: 'MeshExternalService', status: { vip: { ip: '242.0.0.0' } } },
    ]);
    expect([vips.allocate('MeshService'), vips.allocate('MeshService')]).toEqual(['241.0.0.1', '241.0.0.3']);
    expect(vips.allocate('MeshExternalService')).toBe('242.0.0.1');
  });

  it('reads and writes the VIP where each kind keeps it', () => {
    expect(withVip('MeshExternalService', {}, '242.0.0.5')).toEqual({ vip: { ip: '242.0.0.5' } });
    expect(withVip('MeshService', { tls: {} }, '241.0.0.5')).toEqual({ tls: {}, vips: [{ ip: '241.0.0.5' }] });
    expect(vipsOf({ type: 'MeshExternalService', status: { vip: {} } })).toEqual([]);
  });
});
