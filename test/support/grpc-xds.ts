import { register } from '@grpc/grpc-js-xds';
import { loadXxhashApi } from '@grpc/grpc-js-xds/build/src/xxhash.js';

/**
 * Registers gRPC's own Node xDS client (the `xds:` resolver) for in-process test clients.
 *
 * grpc-js-xds 1.14 compiles its xxhash WebAssembly lazily, inside the resolver's first config
 * update; a channel closed during that await leaves the resolver reading its destroyed dependency
 * manager (an unhandled "Cannot read properties of null (reading 'addClusterSubscription')").
 * Tests close clients as soon as they have what they checked, so the hash API is loaded up front.
 */
export async function registerGrpcXds(): Promise<void> {
  register();
  await loadXxhashApi();
}
