import { status } from '@grpc/grpc-js';
import type { Settings } from '../../config/settings.js';
import type { DataplaneTokens, TokenSubject } from '../../security/dataplane-tokens.js';
import { DATAPLANE_TOKEN_METADATA_KEY } from '../generate/bootstrap.js';
import {
  StreamError,
  type Callbacks,
  type StreamClosedEvent,
  type StreamOpenEvent,
  type StreamRequestEvent,
} from '../server/callbacks.js';
import { parseProxyId } from './proxy-id.js';

interface OpenStream {
  peer: string;
  openedAt: Date;
  /** Set once the stream's first request is accepted. */
  proxyId?: string;
  subject?: TokenSubject;
  /** The token its node metadata carried, to check again when tokens or the setting change. */
  token?: unknown;
}

export interface AuthOptions {
  /** Per-Dataplane tokens; without them (tests of other concerns) no token is ever required. */
  tokens?: DataplaneTokens;
  /** `xds.dataplaneTokens`, read on every connect and followed live. */
  settings?: Pick<Settings, 'get' | 'onChange'>;
  /** Ends a live stream whose token no longer holds (AdsServer.closeStream). */
  endStream?: (streamId: number, finalStatus: { code: status; details: string }) => void;
}

/**
 * First in the chain: decides who may speak for a node id.
 *
 * A node id is held by at most one live stream, from its accepted first request to its close; a
 * second stream with the same id is refused with ALREADY_EXISTS, so two processes started with
 * one bootstrap never fight over one Dataplane.
 *
 * With `xds.dataplaneTokens` enabled, the first request must also carry the token issued for the
 * node's Dataplane in node metadata `meshdesk.token` (node metadata rather than gRPC call
 * metadata, because gRPC's own xDS clients can only set the former, from their bootstrap file);
 * otherwise the stream is refused with UNAUTHENTICATED, before anything else is said about the
 * node. The check holds for the stream's whole life: revoking or replacing the token, or enabling
 * the setting, closes every live stream whose token is no longer the issued one.
 */
export class AuthCallbacks implements Callbacks {
  readonly #streams = new Map<number, OpenStream>();
  /** Node id → the live stream holding it. */
  readonly #holders = new Map<string, number>();
  readonly #options: AuthOptions;
  readonly #unsubscribe: (() => void)[] = [];

  constructor(options: AuthOptions = {}) {
    this.#options = options;
    const { tokens, settings } = options;
    if (tokens) this.#unsubscribe.push(tokens.onChange((subject) => this.#recheck(subject)));
    if (settings) this.#unsubscribe.push(settings.onChange('xds.dataplaneTokens', () => this.#recheck()));
  }

  onStreamOpen({ streamId, peer }: StreamOpenEvent): void {
    this.#streams.set(streamId, { peer, openedAt: new Date() });
  }

  onStreamRequest({ streamId, node }: StreamRequestEvent): void {
    const stream = this.#streams.get(streamId);
    if (!stream) throw new Error(`ADS stream ${streamId} sent a request before it was opened`);
    if (stream.proxyId !== undefined) return; // the node is fixed by the first request
    if (!node.id) {
      throw new StreamError(status.INVALID_ARGUMENT, `stream ${streamId} from ${stream.peer} sent no node id: a proxy is identified by "<mesh>.<name>"`);
    }
    const subject = this.#checkToken(streamId, node.id, node.metadata?.[DATAPLANE_TOKEN_METADATA_KEY]);
    const holderId = this.#holders.get(node.id);
    const holder = holderId === undefined ? undefined : this.#streams.get(holderId);
    if (holder) {
      throw new StreamError(
        status.ALREADY_EXISTS,
        `proxy ${node.id} is already connected on another stream ` +
          `(opened ${clockTime(holder.openedAt)} from ${holder.peer}); stop the other proxy or give this one its own node id`,
      );
    }
    stream.proxyId = node.id;
    stream.subject = subject;
    stream.token = node.metadata?.[DATAPLANE_TOKEN_METADATA_KEY];
    this.#holders.set(node.id, streamId);
  }

  onStreamClosed({ streamId }: StreamClosedEvent): void {
    const stream = this.#streams.get(streamId);
    this.#streams.delete(streamId);
    if (stream?.proxyId !== undefined && this.#holders.get(stream.proxyId) === streamId) this.#holders.delete(stream.proxyId);
  }

  /** Stops following token and setting changes. */
  close(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  #tokensRequired(): boolean {
    return this.#options.tokens !== undefined && this.#options.settings?.get('xds.dataplaneTokens') === 'enabled';
  }

  /** Refuses the node unless tokens are off or it presents its Dataplane's token; returns the Dataplane. */
  #checkToken(streamId: number, nodeId: string, token: unknown): TokenSubject | undefined {
    if (!this.#tokensRequired()) return undefined;
    let subject: TokenSubject;
    try {
      subject = parseProxyId(nodeId);
    } catch (error) {
      throw new StreamError(status.INVALID_ARGUMENT, `stream ${streamId}: ${(error as Error).message}`, { cause: error });
    }
    const check = this.#options.tokens!.check(subject, token);
    if (!check.valid) throw new StreamError(status.UNAUTHENTICATED, refusal(nodeId, 'cannot connect', check.reason));
    return subject;
  }

  /** Closes every live stream (of this Dataplane only, when given) whose token no longer holds. */
  #recheck(changed?: TokenSubject): void {
    if (!this.#tokensRequired()) return;
    for (const [streamId, stream] of this.#streams) {
      if (stream.proxyId === undefined) continue;
      const subject = stream.subject ?? safeParse(stream.proxyId);
      if (!subject) continue; // a node id that names no Dataplane is refused by the next callback anyway
      if (changed && (changed.mesh !== subject.mesh || changed.name !== subject.name)) continue;
      const check = this.#options.tokens!.check(subject, stream.token);
      if (check.valid) continue;
      this.#options.endStream?.(streamId, { code: status.UNAUTHENTICATED, details: refusal(stream.proxyId, 'was disconnected', check.reason) });
    }
  }
}

function refusal(nodeId: string, what: string, reason: string): string {
  return (
    `proxy "${nodeId}" ${what}: ${reason}. xds.dataplaneTokens is enabled, so a proxy must send the token ` +
    `issued for its Dataplane in node metadata "${DATAPLANE_TOKEN_METADATA_KEY}"`
  );
}

function safeParse(nodeId: string): TokenSubject | undefined {
  try {
    return parseProxyId(nodeId);
  } catch {
    return undefined;
  }
}

/** `12:00:01`, local time, as a clock on the user's screen shows it. */
function clockTime(date: Date): string {
  return date.toTimeString().slice(0, 8);
}
