import type * as grpc from '@grpc/grpc-js';
import { decodeMessage } from './decode.js';
import { encodeMessage } from './encode.js';
import type { EncodedAny, ProtoJson } from './proto-json.js';
import { messageType, protoRoot } from './proto-root.js';

/**
 * The gRPC definition of Envoy's AggregatedDiscoveryService, built from the proto root, with
 * messages in the proto3 JSON form used everywhere else in meshdesk: snake_case field names as in
 * the protos (`version_info`, `response_nonce`), node metadata as plain JSON. Only the State of the
 * World method is defined; clients calling DeltaAggregatedResources get UNIMPLEMENTED.
 */

export const ADS_SERVICE_NAME = 'envoy.service.discovery.v3.AggregatedDiscoveryService';
const DISCOVERY_REQUEST = 'envoy.service.discovery.v3.DiscoveryRequest';
const DISCOVERY_RESPONSE = 'envoy.service.discovery.v3.DiscoveryResponse';

/** `envoy.config.core.v3.Node`: who is asking. Only `id` is required by meshdesk. */
export interface Node {
  id: string;
  cluster?: string;
  /** `google.protobuf.Struct` as plain JSON. */
  metadata?: { [key: string]: unknown };
  locality?: { region?: string; zone?: string; sub_zone?: string };
  user_agent_name?: string;
  [field: string]: unknown;
}

/** A DiscoveryRequest with its top-level defaults filled in, so the server never meets `undefined`. */
export interface DiscoveryRequest {
  version_info: string;
  node?: Node;
  resource_names: string[];
  type_url: string;
  response_nonce: string;
  /** Present on a NACK: why the client rejected the response it names by nonce. */
  error_detail?: { code?: number; message?: string; details?: ProtoJson[] };
}

export interface DiscoveryResponse {
  version_info: string;
  resources: EncodedAny[];
  type_url: string;
  nonce: string;
  control_plane?: { identifier: string };
}

/**
 * Bytes that are not a DiscoveryRequest. The deserializer hands this to the stream instead of
 * throwing, because grpc-js answers a throwing deserializer with INTERNAL, a server fault, where
 * the client sent garbage: the stream ends it with INVALID_ARGUMENT naming the decode error.
 */
export class UndecodableRequest {
  constructor(readonly reason: string) {}
}

/** What the server reads: the client writes DiscoveryRequests, the server may read garbage. */
export type AdsMethodDefinition = Omit<grpc.MethodDefinition<DiscoveryRequest, DiscoveryResponse>, 'requestDeserialize'> & {
  requestDeserialize: (bytes: Buffer) => DiscoveryRequest | UndecodableRequest;
};

let cachedDefinition: { StreamAggregatedResources: AdsMethodDefinition } | undefined;

/** For `server.addService(...)` and `grpc.makeClientConstructor(...)` alike. */
export function adsServiceDefinition(): { StreamAggregatedResources: AdsMethodDefinition } {
  if (cachedDefinition) return cachedDefinition;
  const method = protoRoot().lookupService(ADS_SERVICE_NAME).methods.StreamAggregatedResources!;
  cachedDefinition = {
    StreamAggregatedResources: {
      path: `/${ADS_SERVICE_NAME}/${method.name}`,
      requestStream: method.requestStream === true,
      responseStream: method.responseStream === true,
      originalName: method.name,
      requestSerialize: (request) => Buffer.from(encodeMessage(DISCOVERY_REQUEST, request, 'DiscoveryRequest')),
      requestDeserialize: (bytes) => {
        try {
          return withRequestDefaults(decodeMessage(DISCOVERY_REQUEST, bytes));
        } catch (error) {
          return new UndecodableRequest(error instanceof Error ? error.message : String(error));
        }
      },
      responseSerialize: (response) => Buffer.from(discoveryResponseWriter(response).finish()),
      responseDeserialize: (bytes) => readDiscoveryResponse(bytes),
    },
  };
  return cachedDefinition;
}

/**
 * Encoded size of a response, without copying its resources: protobufjs's writer knows its length
 * before `finish()`. Lets the server refuse an oversized response before writing it.
 */
export function discoveryResponseSize(response: DiscoveryResponse): number {
  return discoveryResponseWriter(response).len;
}

// Resources are already encoded Anys, so the response is written as is, without the JSON guard.
function discoveryResponseWriter(response: DiscoveryResponse) {
  return messageType(DISCOVERY_RESPONSE).encode(response);
}

function readDiscoveryResponse(bytes: Buffer): DiscoveryResponse {
  const message = messageType(DISCOVERY_RESPONSE).decode(bytes) as unknown as DiscoveryResponse;
  return {
    version_info: message.version_info,
    resources: message.resources.map(({ type_url, value }) => ({ type_url, value })),
    type_url: message.type_url,
    nonce: message.nonce,
  };
}

function withRequestDefaults(json: ProtoJson): DiscoveryRequest {
  return {
    version_info: '',
    resource_names: [],
    type_url: '',
    response_nonce: '',
    ...(json as Partial<DiscoveryRequest>),
  };
}
