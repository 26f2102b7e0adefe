import { describe, expect, it } from 'vitest';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL, XDS_TYPE_URLS } from '../protocol/type-urls.js';
import { mergeResources, ResourceSet } from './resources.js';

describe('ResourceSet', () => {
  it('lists every xDS type in push order, each in insertion order', () => {
    const resources = new ResourceSet()
      .add(LISTENER_TYPE_URL, 'l', { name: 'l' })
      .add(CLUSTER_TYPE_URL, 'b', { name: 'b' })
      .add(CLUSTER_TYPE_URL, 'a', { name: 'a' })
      .toResources();

    expect(Object.keys(resources)).toEqual([...XDS_TYPE_URLS]);
    expect(resources[CLUSTER_TYPE_URL].map(({ name }) => name)).toEqual(['b', 'a']);
  });

  it('keeps one copy of a resource added twice with the same content', () => {
    const resources = new ResourceSet()
      .add(CLUSTER_TYPE_URL, 'web', { name: 'web', type: 'EDS' })
      .add(CLUSTER_TYPE_URL, 'web', { name: 'web', type: 'EDS' })
      .toResources();

    expect(resources[CLUSTER_TYPE_URL]).toEqual([{ name: 'web', resource: { name: 'web', type: 'EDS' } }]);
  });

  it('refuses two different resources of one type under one name', () => {
    const resources = new ResourceSet().add(CLUSTER_TYPE_URL, 'web', { name: 'web', type: 'EDS' });

    expect(() => resources.add(CLUSTER_TYPE_URL, 'web', { name: 'web', type: 'STATIC' })).toThrow(
      'two different cds resources are named "web"',
    );
  });

  it('allows one name in two types', () => {
    const resources = new ResourceSet()
      .add(CLUSTER_TYPE_URL, 'web', { name: 'web' })
      .add(LISTENER_TYPE_URL, 'web', { name: 'web' })
      .toResources();

    expect(resources[LISTENER_TYPE_URL]).toHaveLength(1);
  });
});

describe('mergeResources', () => {
  const earlier = new ResourceSet().add(CLUSTER_TYPE_URL, 'web', { name: 'web', type: 'EDS' }).add(LISTENER_TYPE_URL, 'l', { name: 'l' }).toResources();

  it('collects as one ResourceSet would: earlier first, a name in both once', () => {
    const later = new ResourceSet().add(CLUSTER_TYPE_URL, 'db', { name: 'db' }).add(CLUSTER_TYPE_URL, 'web', { name: 'web', type: 'EDS' }).toResources();

    expect(mergeResources(earlier, later)[CLUSTER_TYPE_URL].map(({ name }) => name)).toEqual(['web', 'db']);
  });

  it('refuses two different resources of one type under one name', () => {
    const later = new ResourceSet().add(CLUSTER_TYPE_URL, 'web', { name: 'web', type: 'STATIC' }).toResources();

    expect(() => mergeResources(earlier, later)).toThrow('two different cds resources are named "web"');
  });

  it('keeps the very list of a type only one side has', () => {
    const later = new ResourceSet().add(CLUSTER_TYPE_URL, 'db', { name: 'db' }).toResources();

    expect(mergeResources(earlier, later)[LISTENER_TYPE_URL]).toBe(earlier[LISTENER_TYPE_URL]);
    expect(mergeResources(later, earlier)[LISTENER_TYPE_URL]).toBe(earlier[LISTENER_TYPE_URL]);
  });
});
