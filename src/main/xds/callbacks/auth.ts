import { status } from '@grpc/grpc-js';
import {
  StreamError,
  type Callbacks,
  type StreamClosedEvent,
  type StreamOpenEvent,
  type StreamRequestEvent,
} from '../server/callbacks.js';

interface OpenStream {
  peer: string;
  openedAt: Date;
  /** Set once the stream's first request is accepted. */
  proxyId?: string;
}

/**
 * First in the chain: decides who may speak for a node id. A node id is held by at most one live
 * stream, from its accepted first request to its close; a second stream with the same id is refused
 * with ALREADY_EXISTS, so two processes started with one bootstrap never fight over one Dataplane.
 *
 * A per-Dataplane credential (issue 7) belongs here too: checked on the first request next to the
 * node id, and kept with the held id so that the lifecycle can compare it on re-registration.
 */
export class AuthCallbacks implements Callbacks {
  readonly #streams = new Map<number, OpenStream>();
  /** Node id → the live stream holding it. */
  readonly #holders = new Map<string, number>();

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
    this.#holders.set(node.id, streamId);
  }

  onStreamClosed({ streamId }: StreamClosedEvent): void {
    const stream = this.#streams.get(streamId);
    this.#streams.delete(streamId);
    if (stream?.proxyId !== undefined && this.#holders.get(stream.proxyId) === streamId) this.#holders.delete(stream.proxyId);
  }
}

/** `12:00:01`, local time, as a clock on the user's screen shows it. */
function clockTime(date: Date): string {
  return date.toTimeString().slice(0, 8);
}
