import type { MeshContext } from '../context/mesh-context.js';
import type { Proxy } from './proxy.js';
import { mergeResources, ResourceSet, type GeneratedResources } from './resources.js';

/** Generates part of a proxy's configuration. Pure: the same context and proxy give the same resources. */
export interface ResourceGenerator {
  /** Names the generator in errors. */
  readonly name: string;
  generate(context: MeshContext, proxy: Proxy): GeneratedResources;
}

/** A generator failed: says which one and for which proxy; the original error is the `cause`. */
export class ResourceGeneratorError extends Error {
  constructor(
    readonly generator: string,
    readonly proxyId: string,
    cause: unknown,
  ) {
    super(`generator "${generator}" failed for proxy "${proxyId}": ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'ResourceGeneratorError';
  }
}

/**
 * Runs its generators in order and merges what they return (Kuma's CompositeResourceGenerator).
 * A failure, including a name clash with an earlier generator's resource, is wrapped with the
 * failing generator's name and the proxy id.
 */
export class CompositeGenerator implements ResourceGenerator {
  constructor(
    readonly name: string,
    private readonly generators: readonly ResourceGenerator[],
  ) {}

  generate(context: MeshContext, proxy: Proxy): GeneratedResources {
    let resources = new ResourceSet().toResources();
    for (const generator of this.generators) {
      try {
        resources = mergeResources(resources, generator.generate(context, proxy));
      } catch (error) {
        if (error instanceof ResourceGeneratorError) throw error; // a nested composite already named the culprit
        throw new ResourceGeneratorError(generator.name, proxy.id, error);
      }
    }
    return resources;
  }
}
