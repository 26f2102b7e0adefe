import * as grpc from '@grpc/grpc-js';
import type { DeltaDiscoveryRequest, DeltaDiscoveryResponse, Node } from '../../protocol/ads-service.js';
import { RawCall } from './raw-call.js';
import { PROBE_TYPE_URL, probeNames, resourceName, resourceProblems } from './raw-ads-client.js';

/**
 * A raw delta (incremental) ADS client for tests: a real gRPC DeltaAggregatedResources stream that
 * sends exactly the requests a test asks for, checks every response against the invariants any
 * client relies on (see RawCall, plus: every resource named, versioned, of the response's type, and
 * named as its content names it; no name both sent and removed), and keeps what a client would
 * have: each type's resources by name, at their versions.
 */
export class RawDeltaClient {
  readonly status: Promise<grpc.StatusObject>;
  readonly #call: RawCall<DeltaDiscoveryRequest, DeltaDiscoveryResponse>;
  readonly #node: Node;
  readonly #held = new Map<string, Map<string, string>>();
  #nodeSent = false;
  #probes = 0;

  constructor(port: number, node: Node = { id: 'default.client' }) {
    this.#call = new RawCall(port, 'DeltaAggregatedResources');
    this.status = this.#call.status;
    this.#node = node;
  }

  /** Sends a request as given; the node goes with the first request only, unless `node` says otherwise. */
  send(
    typeUrl: string,
    request: {
      subscribe?: string[];
      unsubscribe?: string[];
      initialVersions?: Record<string, string>;
      nonce?: string;
      errorDetail?: { code: number; message: string };
      node?: Node | null;
    } = {},
  ): void {
    const node = request.node === null ? undefined : (request.node ?? (this.#nodeSent ? undefined : this.#node));
    this.#nodeSent = true;
    this.#call.write({
      ...(node ? { node } : {}),
      type_url: typeUrl,
      resource_names_subscribe: request.subscribe ?? [],
      resource_names_unsubscribe: request.unsubscribe ?? [],
      initial_resource_versions: request.initialVersions ?? {},
      response_nonce: request.nonce ?? '',
      ...(request.errorDetail ? { error_detail: request.errorDetail } : {}),
    });
  }

  /** Accepts a response, optionally changing the subscription in the same request. */
  ack(response: DeltaDiscoveryResponse, change: { subscribe?: string[]; unsubscribe?: string[] } = {}): void {
    this.send(response.type_url, { ...change, nonce: response.nonce });
  }

  /** Rejects a response: echoes its nonce, with an error. */
  nack(response: DeltaDiscoveryResponse, message: string): void {
    this.send(response.type_url, { nonce: response.nonce, errorDetail: { code: grpc.status.INVALID_ARGUMENT, message } });
  }

  /** The next response, checked, and applied to what the client holds. */
  async next(): Promise<DeltaDiscoveryResponse> {
    const response = await this.#call.read((read) => deltaProblems(read));
    const held = this.held(response.type_url);
    for (const { name, version } of response.resources) held.set(name, version);
    for (const name of response.removed_resources) held.delete(name);
    this.#held.set(response.type_url, held);
    return response;
  }

  /** What the client holds of a type: versions by name. */
  held(typeUrl: string): Map<string, string> {
    return new Map(this.#held.get(typeUrl));
  }

  /**
   * Subscribes to one more probe resource and returns every other response that arrived before
   * the probe's answer. The server handles a stream's requests in order, so an empty list proves
   * the requests sent before the barrier caused no response.
   */
  async barrier(): Promise<DeltaDiscoveryResponse[]> {
    this.#probes += 1;
    this.send(PROBE_TYPE_URL, { subscribe: probeNames(this.#probes).slice(-1) });
    const before: DeltaDiscoveryResponse[] = [];
    for (;;) {
      const response = await this.next();
      if (response.type_url === PROBE_TYPE_URL) return before;
      before.push(response);
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
}

function deltaProblems(response: DeltaDiscoveryResponse): string[] {
  const names = response.resources.map(({ name }) => name);
  const problems = resourceProblems(
    response.type_url,
    response.resources.map(({ resource }) => resource),
    names,
  );
  for (const { name, version, resource } of response.resources) {
    if (!version) problems.push(`resource "${name}" has no version`);
    if (resourceName(resource) !== name) problems.push(`resource "${name}" carries "${resourceName(resource)}"`);
  }
  const both = response.removed_resources.filter((name) => names.includes(name));
  if (both.length > 0) problems.push(`sent and removed at once: ${both.join(', ')}`);
  return problems;
}
