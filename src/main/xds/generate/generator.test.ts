import { describe, expect, it } from 'vitest';
import type { MeshContext } from '../context/mesh-context.js';
import { CLUSTER_TYPE_URL } from '../protocol/type-urls.js';
import { CompositeGenerator, ResourceGeneratorError, type ResourceGenerator } from './generator.js';
import type { Proxy } from './proxy.js';
import { ResourceSet } from './resources.js';

const context = {} as MeshContext; // these generators never read it
const proxy = { id: 'default.web-1' } as Proxy;

function clusterGenerator(name: string, cluster: string, type = 'EDS'): ResourceGenerator {
  return { name, generate: () => new ResourceSet().add(CLUSTER_TYPE_URL, cluster, { name: cluster, type }).toResources() };
}

function failingGenerator(name: string): ResourceGenerator {
  return {
    name,
    generate: () => {
      throw new Error('no such service');
    },
  };
}

describe('CompositeGenerator', () => {
  it('merges what its generators return, in their order', () => {
    const composite = new CompositeGenerator('test', [clusterGenerator('first', 'b'), clusterGenerator('second', 'a')]);

    expect(composite.generate(context, proxy)[CLUSTER_TYPE_URL].map(({ name }) => name)).toEqual(['b', 'a']);
  });

  it('names the failing generator and the proxy, keeping the original error as the cause', () => {
    const composite = new CompositeGenerator('test', [clusterGenerator('first', 'a'), failingGenerator('second')]);

    const error = captureError(() => composite.generate(context, proxy));
    expect(error).toBeInstanceOf(ResourceGeneratorError);
    expect(error.message).toBe('generator "second" failed for proxy "default.web-1": no such service');
    expect((error as ResourceGeneratorError).generator).toBe('second');
    expect((error.cause as Error).message).toBe('no such service');
  });

  it('blames the generator whose resource clashes with an earlier one', () => {
    const composite = new CompositeGenerator('test', [clusterGenerator('first', 'web'), clusterGenerator('second', 'web', 'STATIC')]);

    expect(() => composite.generate(context, proxy)).toThrow(
      'generator "second" failed for proxy "default.web-1": two different cds resources are named "web"',
    );
  });

  it('keeps the innermost generator name when composites are nested', () => {
    const composite = new CompositeGenerator('outer', [new CompositeGenerator('inner', [failingGenerator('leaf')])]);

    expect(() => composite.generate(context, proxy)).toThrow('generator "leaf" failed for proxy "default.web-1"');
  });
});

function captureError(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}
