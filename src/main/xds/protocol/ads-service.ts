import type * as grpc from '@grpc/grpc-js';
import { decodeMessage } from './decode.js';
import { encodeMessage } from './encode.js';
import type { EncodedAny, ProtoJson } from './proto-json.js';
import { messageType, protoRoot } from './proto-root.js';

/**
 * The gRPC definition of Envoy's AggregatedDiscoveryService, built from the proto root, with
 * messages in the proto3 JSON form used everywhere else in meshdesk: snake_case field names as in
 * the protos (`version_info`, `response_nonce`), node metadata as plain JSON. Both methods are
 * defined: State of the World (StreamAggregatedResources) and incremental (DeltaAggregatedResources).
 */

export const ADS_SERVICE_NAME = 'envoy.service.discovery.v3.AggregatedDiscoveryService';
const DISCOVERY_REQUEST = 'envoy.service.discovery.v3.DiscoveryRequest';
const DISCOVERY_RESPONSE = 'envoy.service.discovery.v3.DiscoveryResponse';
const DELTA_DISCOVERY_REQUEST = 'envoy.service.discovery.v3.DeltaDiscoveryRequest';
const DELTA_DISCOVERY_RESPONSE = 'envoy.service.discovery.v3.DeltaDiscoveryResponse';

/** The two variants of the xDS transport: State of the World (the default, as in Kuma), or incremental ("delta"). */
export const XDS_PROTOCOLS = ['sotw', 'delta'] as const;
export type XdsProtocol = (typeof XDS_PROTOCOLS)[number];

/** `envoy.config.core.v3.Node`: who is asking. Only `id` is required by meshdesk. */
export interface Node {
  id: string;
  cluster?: string;
  /** `google.protobuf.Struct` as plain JSON. */
  metadata?: { [key: string]: unknown };
  locality?: { region?: string; zone?: string; sub_zone?: string };
  user_agent_name?: string;
  user_agent_version?: string;
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

/** A DeltaDiscoveryRequest with its top-level defaults filled in, as DiscoveryRequest. */
export interface DeltaDiscoveryRequest {
  node?: Node;
  type_url: string;
  /** Names added to the stream's subscription for the type (`*` subscribes to the wildcard). */
  resource_names_subscribe: string[];
  /** Names removed from it (`*` leaves the wildcard). */
  resource_names_unsubscribe: string[];
  /** On a type's first request of a reconnected stream: the versions of the resources the client still has. */
  initial_resource_versions: { [name: string]: string };
  /** Set on an ACK or NACK only: the nonce of the response it answers. */
  response_nonce: string;
  error_detail?: DiscoveryRequest['error_detail'];
}

/**
 * Bytes that are not a DiscoveryRequest. The deserializer hands this to the stream instead of
 * throwing, because grpc-js answers a throwing deserializer with INTERNAL, a server fault, where
 * the client sent garbage: the stream ends it with INVALID_ARGUMENT naming the decode error.
 */
export class UndecodableRequest {
  constructor(readonly reason: string) {}
}

/** `envoy.service.discovery.v3.Resource`: one resource of a delta response, with its own version. */
export interface DeltaResource {
  name: string;
  version: string;
  resource: EncodedAny;
}

export interface DeltaDiscoveryResponse {
  /** The version of the type as a whole; for debugging only (each resource has its own version). */
  system_version_info: string;
  resources: DeltaResource[];
  type_url: string;
  removed_resources: string[];
  nonce: string;
}

/** Either protocol's messages, where code handles both (the stream's request loop, the callbacks). */
export type XdsRequest = DiscoveryRequest | DeltaDiscoveryRequest;
export type XdsResponse = DiscoveryResponse | DeltaDiscoveryResponse;

/** What the server reads: the client writes the method's requests, the server may read garbage. */
export type MethodDefinitionReadingGarbage<Request, Response> = Omit<grpc.MethodDefinition<Request, Response>, 'requestDeserialize'> & {
  requestDeserialize: (bytes: Buffer) => Request | UndecodableRequest;
};
export type AdsMethodDefinition = MethodDefinitionReadingGarbage<DiscoveryRequest, DiscoveryResponse>;
export type DeltaAdsMethodDefinition = MethodDefinitionReadingGarbage<DeltaDiscoveryRequest, DeltaDiscoveryResponse>;

// A type alias, not an interface: grpc-js wants a definition indexable by method name.
type AdsServiceDefinition = {
  StreamAggregatedResources: AdsMethodDefinition;
  DeltaAggregatedResources: DeltaAdsMethodDefinition;
};

let cachedDefinition: AdsServiceDefinition | undefined;

/** For `server.addService(...)` and `grpc.makeClientConstructor(...)` alike. */
export function adsServiceDefinition(): AdsServiceDefinition {
  if (cachedDefinition) return cachedDefinition;
  cachedDefinition = {
    StreamAggregatedResources: methodDefinition<DiscoveryRequest, DiscoveryResponse>('StreamAggregatedResources', {
      request: DISCOVERY_REQUEST,
      response: DISCOVERY_RESPONSE,
      requestDefaults: { version_info: '', resource_names: [], type_url: '', response_nonce: '' },
      readResponse: (message: DiscoveryResponse) => ({
        version_info: message.version_info,
        resources: message.resources.map(plainAny),
        type_url: message.type_url,
        nonce: message.nonce,
      }),
    }),
    DeltaAggregatedResources: methodDefinition<DeltaDiscoveryRequest, DeltaDiscoveryResponse>('DeltaAggregatedResources', {
      request: DELTA_DISCOVERY_REQUEST,
      response: DELTA_DISCOVERY_RESPONSE,
      requestDefaults: {
        type_url: '',
        resource_names_subscribe: [],
        resource_names_unsubscribe: [],
        initial_resource_versions: {},
        response_nonce: '',
      },
      readResponse: (message: DeltaDiscoveryResponse) => ({
        system_version_info: message.system_version_info,
        resources: message.resources.map(({ name, version, resource }) => ({ name, version, resource: plainAny(resource) })),
        type_url: message.type_url,
        removed_resources: message.removed_resources,
        nonce: message.nonce,
      }),
    }),
  };
  return cachedDefinition;
}

/** One bidirectional method: requests go through the JSON guard, responses (already encoded Anys) do not. */
function methodDefinition<Request extends object, Response extends object>(
  name: keyof AdsServiceDefinition,
  messages: { request: string; response: string; requestDefaults: Request; readResponse: (message: Response) => Response },
): MethodDefinitionReadingGarbage<Request, Response> {
  const method = protoRoot().lookupService(ADS_SERVICE_NAME).methods[name]!;
  const shortRequestName = messages.request.slice(messages.request.lastIndexOf('.') + 1);
  return {
    path: `/${ADS_SERVICE_NAME}/${method.name}`,
    requestStream: method.requestStream === true,
    responseStream: method.responseStream === true,
    originalName: method.name,
    requestSerialize: (request) => Buffer.from(encodeMessage(messages.request, request as ProtoJson, shortRequestName)),
    requestDeserialize: (bytes) => {
      try {
        return { ...messages.requestDefaults, ...(decodeMessage(messages.request, bytes) as Partial<Request>) };
      } catch (error) {
        return new UndecodableRequest(error instanceof Error ? error.message : String(error));
      }
    },
    responseSerialize: (response) => Buffer.from(messageType(messages.response).encode(response).finish()),
    responseDeserialize: (bytes) => messages.readResponse(messageType(messages.response).decode(bytes) as unknown as Response),
  };
}

/**
 * Encoded size of a response of either protocol, without copying its resources: protobufjs's
 * writer knows its length before `finish()`. Lets the server refuse an oversized response before
 * writing it.
 */
export function discoveryResponseSize(response: XdsResponse): number {
  const type = 'system_version_info' in response ? DELTA_DISCOVERY_RESPONSE : DISCOVERY_RESPONSE;
  return messageType(type).encode(response).len;
}

function plainAny({ type_url, value }: EncodedAny): EncodedAny {
  return { type_url, value };
}
