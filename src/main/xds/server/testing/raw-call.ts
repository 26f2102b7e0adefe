import * as grpc from '@grpc/grpc-js';
import { adsServiceDefinition, type XdsRequest, type XdsResponse } from '../../protocol/ads-service.js';

type AdsMethod = 'StreamAggregatedResources' | 'DeltaAggregatedResources';

/** How a test client reaches the ADS server. */
export interface AdsChannel {
  credentials?: grpc.ChannelCredentials;
  options?: grpc.ChannelOptions;
}

/**
 * One real gRPC ADS stream for the raw test clients (SotW and delta), built from the server's own
 * service definition: writes what it is given, queues what it reads, and checks the one invariant
 * both protocols share on every response (a non-empty nonce, never used before on the stream).
 */
export class RawCall<Request extends XdsRequest, Response extends XdsResponse> {
  /** Resolves with the stream's final status. */
  readonly status: Promise<grpc.StatusObject>;
  readonly #client: grpc.Client;
  readonly #call: grpc.ClientDuplexStream<Request, Response>;
  readonly #unread: Response[] = [];
  readonly #waiting: Array<(response: Response) => void> = [];
  readonly #noncesSeen = new Set<string>();

  /** `channel`: plaintext unless given (e.g. TLS with `credentials.createSsl(ca)`). */
  constructor(port: number, method: AdsMethod, channel: AdsChannel = {}) {
    const Client = grpc.makeGenericClientConstructor(adsServiceDefinition(), 'AggregatedDiscoveryService');
    this.#client = new Client(`127.0.0.1:${port}`, channel.credentials ?? grpc.credentials.createInsecure(), channel.options);
    const open = (this.#client as unknown as Record<AdsMethod, () => grpc.ClientDuplexStream<Request, Response>>)[method];
    this.#call = open.call(this.#client);
    this.status = new Promise((resolve) => this.#call.on('status', resolve));
    this.#call.on('error', () => {}); // the status promise reports it
    this.#call.on('data', (response: Response) => {
      const waiter = this.#waiting.shift();
      if (waiter) waiter(response);
      else this.#unread.push(response);
    });
  }

  write(request: Request): void {
    this.#call.write(request);
  }

  /** The next response; throws if its nonce breaks the rule, naming `problems` found by the caller too. */
  async read(check: (response: Response) => string[]): Promise<Response> {
    const response = this.#unread.shift() ?? (await new Promise<Response>((resolve) => this.#waiting.push(resolve)));
    const problems = check(response);
    if (!response.nonce) problems.push('nonce is empty');
    if (this.#noncesSeen.has(response.nonce)) problems.push(`nonce ${response.nonce} was already used on this stream`);
    this.#noncesSeen.add(response.nonce);
    if (problems.length > 0) throw new Error(`protocol violation in ${response.type_url} response ${response.nonce}: ${problems.join('; ')}`);
    return response;
  }

  /**
   * Stops reading the stream, as a client that stopped reading: gRPC stops taking messages off the
   * connection, so HTTP/2 flow control leaves the server's responses on the server's side.
   */
  pause(): void {
    this.#call.pause();
  }

  resume(): void {
    this.#call.resume();
  }

  close(): void {
    this.#call.end();
    this.#client.close();
  }
}
