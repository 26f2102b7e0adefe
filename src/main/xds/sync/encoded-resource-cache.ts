import { Buffer } from 'node:buffer';
import { encodeResource, hasEncodedParts } from '../protocol/encode.js';
import type { EncodedAny, ProtoJson } from '../protocol/proto-json.js';
import { resourceVersion } from '../server/snapshot.js';

/** Distinct resources remembered by content before the older half is forgotten. */
const DEFAULT_CAPACITY = 50_000;

/**
 * Encoded Anys shared by every proxy. Most of a mesh's resources are the same for many proxies
 * (a service's cluster and endpoints, the outbound listener to it), and encoding, with the guard
 * that checks each field against Envoy's protos, is by far the most expensive step of a generation.
 *
 * Looked up first by the resource object itself (free when a generator shared one object between
 * proxies, see memoizedForContext). A resource built anew (every object new: a new MeshContext's,
 * equal to the last one's) is then looked up by its content as JSON text, and encoded only when
 * that is new. A resource edited from encoded ones (a proxy's own edit of a shared cluster) is
 * encoded, which costs only its new parts (see hasEncodedParts) and less than its JSON text, and
 * then shared by its bytes' hash (the resource version reconcile needs anyway): either way, equal
 * content gives one Any. The content index keeps two generations and drops the older one when
 * the newer is full: resources in use stay, resources nobody generates any more go, and memory
 * stays bounded.
 */
export class EncodedResourceCache {
  #byObject = new WeakMap<object, EncodedAny>();
  /** By type URL and JSON text, for resources built anew. */
  readonly #byText: TwoGenerations;
  /** By type URL and resource version, for every Any: one entry per distinct content. */
  readonly #byBytes: TwoGenerations;

  constructor(options: { capacity?: number } = {}) {
    const capacity = options.capacity ?? DEFAULT_CAPACITY;
    this.#byText = new TwoGenerations(capacity);
    this.#byBytes = new TwoGenerations(capacity);
  }

  /** The resource's Any; throws as encodeResource does, and caches nothing then. */
  encode(typeUrl: string, resource: ProtoJson): EncodedAny {
    const known = this.#byObject.get(resource);
    if (known && known.type_url === typeUrl) return known;
    let any: EncodedAny;
    if (hasEncodedParts(resource)) {
      any = this.#sharedByBytes(encodeResource(typeUrl, resource));
    } else {
      const key = `${typeUrl}\n${JSON.stringify(resource)}`;
      any = this.#byText.recall(key) ?? this.#sharedByBytes(encodeResource(typeUrl, resource));
      this.#byText.remember(key, any);
    }
    this.#byObject.set(resource, any);
    return any;
  }

  /** Distinct contents remembered now, for tests and benchmarks. */
  get size(): number {
    return this.#byBytes.size;
  }

  /** The Any remembered with these very bytes, or this one, remembered. */
  #sharedByBytes(any: EncodedAny): EncodedAny {
    // A version is a hash prefix: the bytes are compared too, so two contents never share one Any.
    const key = `${any.type_url}\n${resourceVersion({ any })}`;
    const known = this.#byBytes.recall(key);
    if (known && Buffer.compare(known.value, any.value) === 0) return known;
    this.#byBytes.remember(key, any);
    return any;
  }
}

/** A map of at most `capacity` entries that forgets the older half of them when full. */
class TwoGenerations {
  #current = new Map<string, EncodedAny>();
  #previous = new Map<string, EncodedAny>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#current.size + this.#previous.size;
  }

  recall(key: string): EncodedAny | undefined {
    const any = this.#current.get(key);
    if (any) return any;
    const older = this.#previous.get(key);
    // Still in use: it moves to the newer generation, so that it survives the next turnover.
    if (older) this.remember(key, older);
    return older;
  }

  remember(key: string, any: EncodedAny): void {
    if (this.#current.get(key) === any) return;
    if (this.#current.size >= this.capacity / 2) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(key, any);
  }
}
