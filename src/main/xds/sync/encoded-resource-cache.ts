import { encodeResource } from '../protocol/encode.js';
import type { EncodedAny, ProtoJson } from '../protocol/proto-json.js';

/** Distinct resources remembered by content before the older half is forgotten. */
const DEFAULT_CAPACITY = 50_000;

/**
 * Encoded Anys shared by every proxy. Most of a mesh's resources are the same for many proxies
 * (a service's cluster and endpoints, the outbound listener to it), and encoding, with the guard
 * that checks each field against Envoy's protos, is by far the most expensive step of a generation.
 *
 * Looked up first by the resource object itself (free when a generator shared one object between
 * proxies, see memoizedForContext), then by its content as JSON text (equal content from separate
 * objects). Equal JSON gives equal bytes, so sharing never changes what a proxy gets. The content
 * index keeps two generations and drops the older one when the newer is full: resources in use
 * stay, resources nobody generates any more go, and memory stays bounded.
 */
export class EncodedResourceCache {
  readonly #capacity: number;
  #byObject = new WeakMap<object, EncodedAny>();
  #current = new Map<string, EncodedAny>();
  #previous = new Map<string, EncodedAny>();

  constructor(options: { capacity?: number } = {}) {
    this.#capacity = options.capacity ?? DEFAULT_CAPACITY;
  }

  /** The resource's Any; throws as encodeResource does, and caches nothing then. */
  encode(typeUrl: string, resource: ProtoJson): EncodedAny {
    const known = this.#byObject.get(resource);
    if (known && known.type_url === typeUrl) return known;
    const key = `${typeUrl}\n${JSON.stringify(resource)}`;
    let any = this.#current.get(key);
    if (!any) {
      any = this.#previous.get(key) ?? encodeResource(typeUrl, resource);
      this.#remember(key, any);
    }
    this.#byObject.set(resource, any);
    return any;
  }

  /** Distinct contents remembered now, for tests and benchmarks. */
  get size(): number {
    return this.#current.size + this.#previous.size;
  }

  #remember(key: string, any: EncodedAny): void {
    if (this.#current.size >= this.#capacity / 2) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(key, any);
  }
}
