import * as grpc from '@grpc/grpc-js';
import { adsServiceDefinition, type DiscoveryRequest, type DiscoveryResponse, type Node } from '../../protocol/ads-service.js';
import { decodeResource } from '../../protocol/decode.js';
import { encodeResource } from '../../protocol/encode.js';
import type { Snapshot, SnapshotResource } from '../snapshot.js';

/**
 * A raw ADS client for tests: a real gRPC stream to the server, built from the same service
 * definition, that sends exactly the requests a test asks for and checks every response it reads
 * against the invariants any client relies on (nonce unique in the stream, version set, every Any
 * of the response's type, no name twice).
 */

/** A type the server knows nothing special about; a test grows its subscription to get one answer it can wait for. */
export const PROBE_TYPE_URL = 'type.googleapis.com/envoy.config.route.v3.VirtualHost';
const PROBE_RESOURCES = 100;

/** The snapshot plus the probe resources that `barrier()` subscribes to, one more each time. */
export function withProbe(snapshot: Snapshot): Snapshot {
  const resources = new Map<string, SnapshotResource>();
  for (let index = 1; index <= PROBE_RESOURCES; index++) {
    const name = `probe-${index}`;
    resources.set(name, { any: encodeResource(PROBE_TYPE_URL, { name, domains: ['*'] }) });
  }
  return new Map([...snapshot, [PROBE_TYPE_URL, { version: 'probe', resources }]]);
}

type AdsClientCall = grpc.ClientDuplexStream<DiscoveryRequest, DiscoveryResponse>;

/** The names of a response's resources, in order (`name`, or `cluster_name` for endpoints). */
export function resourceNames(response: DiscoveryResponse): string[] {
  return response.resources.map((any) => {
    const resource = decodeResource(any);
    return String(resource.name ?? resource.cluster_name);
  });
}

interface TypeState {
  names: string[];
  acceptedVersion: string;
  latestNonce: string;
}

export class RawAdsClient {
  /** Resolves with the stream's final status. */
  readonly status: Promise<grpc.StatusObject>;
  readonly #client: grpc.Client;
  readonly #call: AdsClientCall;
  readonly #node: Node;
  readonly #unread: DiscoveryResponse[] = [];
  readonly #waiting: Array<(response: DiscoveryResponse) => void> = [];
  readonly #types = new Map<string, TypeState>();
  readonly #noncesSeen = new Set<string>();
  #nodeSent = false;
  #probeNames = 0;

  constructor(port: number, node: Node = { id: 'default.client' }) {
    const Client = grpc.makeGenericClientConstructor(adsServiceDefinition(), 'AggregatedDiscoveryService');
    this.#client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    this.#node = node;
    this.#call = (this.#client as unknown as Record<string, () => AdsClientCall>).StreamAggregatedResources!.call(this.#client);
    this.status = new Promise((resolve) => this.#call.on('status', resolve));
    this.#call.on('error', () => {}); // the status promise reports it
    this.#call.on('data', (response: DiscoveryResponse) => {
      const waiter = this.#waiting.shift();
      if (waiter) waiter(response);
      else this.#unread.push(response);
    });
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
    const response = this.#unread.shift() ?? (await new Promise<DiscoveryResponse>((resolve) => this.#waiting.push(resolve)));
    this.#check(response);
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
    const names = Array.from({ length: this.#probeNames }, (_, index) => `probe-${index + 1}`);
    this.send(PROBE_TYPE_URL, { names });
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

  close(): void {
    this.#call.end();
    this.#client.close();
  }

  #state(typeUrl: string): TypeState {
    let state = this.#types.get(typeUrl);
    if (!state) this.#types.set(typeUrl, (state = { names: [], acceptedVersion: '', latestNonce: '' }));
    return state;
  }

  #check(response: DiscoveryResponse): void {
    const problems: string[] = [];
    if (this.#noncesSeen.has(response.nonce)) problems.push(`nonce ${response.nonce} was already used on this stream`);
    if (!response.nonce) problems.push('nonce is empty');
    if (!response.version_info) problems.push('version_info is empty');
    const wrongType = response.resources.filter((any) => any.type_url !== response.type_url);
    if (wrongType.length > 0) problems.push(`${wrongType.length} resource(s) are not ${response.type_url}`);
    const names = resourceNames(response);
    if (new Set(names).size !== names.length) problems.push(`a name appears twice: ${names.join(', ')}`);
    this.#noncesSeen.add(response.nonce);
    if (problems.length > 0) throw new Error(`protocol violation in ${response.type_url} response ${response.nonce}: ${problems.join('; ')}`);
  }
}
