import * as grpc from '@grpc/grpc-js';
import type { DiscoveryRequest, DiscoveryResponse, Node } from '../../protocol/ads-service.js';
import { decodeResource } from '../../protocol/decode.js';
import { encodeResource } from '../../protocol/encode.js';
import type { EncodedAny } from '../../protocol/proto-json.js';
import type { Snapshot, SnapshotResource } from '../snapshot.js';
import { RawCall, type AdsChannel } from './raw-call.js';

/**
 * A raw ADS client for tests: a real gRPC stream to the server, built from the same service
 * definition, that sends exactly the requests a test asks for and checks every response it reads
 * against the invariants any client relies on (nonce unique in the stream, version set, every Any
 * of the response's type, no name twice).
 */

/** A type the server knows nothing special about; a test grows its subscription to get one answer it can wait for. */
export const PROBE_TYPE_URL = 'type.googleapis.com/envoy.config.route.v3.VirtualHost';
const PROBE_RESOURCES = 100;

/** The probe names a client's barrier number `count` subscribes to. */
export function probeNames(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `probe-${index + 1}`);
}

/** The snapshot plus the probe resources that `barrier()` subscribes to, one more each time. */
export function withProbe(snapshot: Snapshot): Snapshot {
  const resources = new Map<string, SnapshotResource>();
  for (let index = 1; index <= PROBE_RESOURCES; index++) {
    const name = `probe-${index}`;
    resources.set(name, { any: encodeResource(PROBE_TYPE_URL, { name, domains: ['*'] }) });
  }
  return new Map([...snapshot, [PROBE_TYPE_URL, { version: 'probe', resources }]]);
}

/** The names of a response's resources, in order (`name`, or `cluster_name` for endpoints). */
export function resourceNames(response: DiscoveryResponse): string[] {
  return response.resources.map(resourceName);
}

export function resourceName(any: EncodedAny): string {
  const resource = decodeResource(any);
  return String(resource.name ?? resource.cluster_name);
}

/** Problems with the resources of a response of `typeUrl` carrying these Anys and names (both protocols). */
export function resourceProblems(typeUrl: string, anys: readonly EncodedAny[], names: readonly string[]): string[] {
  const problems: string[] = [];
  const wrongType = anys.filter((any) => any.type_url !== typeUrl);
  if (wrongType.length > 0) problems.push(`${wrongType.length} resource(s) are not ${typeUrl}`);
  if (new Set(names).size !== names.length) problems.push(`a name appears twice: ${names.join(', ')}`);
  return problems;
}

interface TypeState {
  names: string[];
  acceptedVersion: string;
  latestNonce: string;
}

export class RawAdsClient {
  /** Resolves with the stream's final status. */
  readonly status: Promise<grpc.StatusObject>;
  readonly #call: RawCall<DiscoveryRequest, DiscoveryResponse>;
  readonly #node: Node;
  readonly #types = new Map<string, TypeState>();
  #nodeSent = false;
  #probeNames = 0;

  constructor(port: number, node: Node = { id: 'default.client' }, channel?: AdsChannel) {
    this.#call = new RawCall(port, 'StreamAggregatedResources', channel);
    this.status = this.#call.status;
    this.#node = node;
  }

  /** Sends a request as given; the node goes with the first request only, unless `node` says otherwise. */
  send(typeUrl: string, request: { names?: string[]; nonce?: string; version?: string; errorDetail?: { code: number; message: string }; node?: Node | null } = {}): void {
    const node = request.node === null ? undefined : (request.node ?? (this.#nodeSent ? undefined : this.#node));
    this.#nodeSent = true;
    const state = this.#state(typeUrl);
    state.names = request.names ?? state.names;
    this.#call.write({
      version_info: request.version ?? state.acceptedVersion,
      ...(node ? { node } : {}),
      resource_names: state.names,
      type_url: typeUrl,
      response_nonce: request.nonce ?? state.latestNonce,
      ...(request.errorDetail ? { error_detail: request.errorDetail } : {}),
    });
  }

  /** Accepts a response (optionally changing the names subscribed to at the same time). */
  ack(response: DiscoveryResponse, names?: string[]): void {
    this.#state(response.type_url).acceptedVersion = response.version_info;
    this.send(response.type_url, { names, nonce: response.nonce });
  }

  /** Rejects a response: echoes its nonce, with the last accepted version and an error. */
  nack(response: DiscoveryResponse, message: string): void {
    this.send(response.type_url, { nonce: response.nonce, errorDetail: { code: grpc.status.INVALID_ARGUMENT, message } });
  }

  /** The next response, checked against the protocol's invariants. */
  async next(): Promise<DiscoveryResponse> {
    const response = await this.#call.read((read) => [
      ...(read.version_info ? [] : ['version_info is empty']),
      ...resourceProblems(read.type_url, read.resources, resourceNames(read)),
    ]);
    this.#state(response.type_url).latestNonce = response.nonce;
    return response;
  }

  /**
   * Asks for one more probe resource and returns every other response that arrived before the
   * probe's answer. The server handles a stream's requests in order, so an empty list proves the
   * requests sent before the barrier caused no response.
   */
  async barrier(): Promise<DiscoveryResponse[]> {
    this.#probeNames += 1;
    this.send(PROBE_TYPE_URL, { names: probeNames(this.#probeNames) });
    const before: DiscoveryResponse[] = [];
    for (;;) {
      const response = await this.next();
      if (response.type_url !== PROBE_TYPE_URL) before.push(response);
      else {
        this.#state(PROBE_TYPE_URL).acceptedVersion = response.version_info;
        return before;
      }
    }
  }

  /** Stops reading responses (see RawCall.pause); `resume()` reads again. */
  pause(): void {
    this.#call.pause();
  }

  resume(): void {
    this.#call.resume();
  }

  close(): void {
    this.#call.close();
  }

  #state(typeUrl: string): TypeState {
    let state = this.#types.get(typeUrl);
    if (!state) this.#types.set(typeUrl, (state = { names: [], acceptedVersion: '', latestNonce: '' }));
    return state;
  }
}
