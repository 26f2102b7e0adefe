import type * as grpc from '@grpc/grpc-js';

/**
 * A unary gRPC method over raw UTF-8 at `path`, so that neither side needs a proto file: the demo's
 * greeter, and the tests' echo service (whose Python clients call the same path).
 */
export function textUnaryMethod(path: string) {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: (text: string) => Buffer.from(text),
    requestDeserialize: (bytes: Buffer) => bytes.toString(),
    responseSerialize: (text: string) => Buffer.from(text),
    responseDeserialize: (bytes: Buffer) => bytes.toString(),
  } satisfies grpc.MethodDefinition<string, string>;
}
