import type { Socket } from 'node:net';

/**
 * How many connections a port holds and for how long they may say nothing. Every connection costs
 * a file descriptor, and a process has about a thousand (`ulimit -n` is often 1,024): 20,000
 * connections that never sent a byte left none, and every new API and ADS connection was reset.
 */
export interface ConnectionLimits {
  /**
   * Connections accepted that have not said what they speak yet (no first byte, or a TLS
   * handshake or first decrypted byte still to come). Past it the oldest of them is closed: a
   * real client speaks at once, so it is never the oldest for long.
   */
  maxPending: number;
  /** A connection whose first byte has not come by then is closed. Envoy and gRPC send theirs on connect. */
  firstByteTimeoutMs: number;
  /** A TLS connection that has not finished its handshake and sent its first request by then is closed. */
  tlsHandshakeTimeoutMs: number;
  /** Connections served at once; a further one is refused (gRPC: RESOURCE_EXHAUSTED, HTTP: 503), saying so. */
  maxServed: number;
}

/**
 * The ADS port's defaults: a laptop's mesh has tens of proxies, each with one ADS connection; with
 * the pending and refused ones, the port holds at most about 800 descriptors.
 */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxPending: 128,
  firstByteTimeoutMs: 10_000,
  tlsHandshakeTimeoutMs: 10_000,
  maxServed: 512,
};

/**
 * Connections that have not said anything yet, oldest first, each closed at its deadline or when
 * `maxPending` newer ones push it out; settled (no longer pending) once it has spoken. Known by
 * peer address and port, which a TLS socket made over the connection shares with it.
 */
export class PendingConnections {
  /** In arrival order (a Map keeps insertion order): the first is the oldest. */
  readonly #pending = new Map<string, { socket: Socket; deadline: NodeJS.Timeout }>();

  constructor(private readonly maxPending: number) {}

  get size(): number {
    return this.#pending.size;
  }

  /** Holds `socket` until it is settled, closing it after `timeoutMs`; makes room by closing the oldest. */
  admit(socket: Socket, timeoutMs: number): void {
    if (socket.remotePort === undefined) return void socket.destroy(); // gone already
    const peer = peerOf(socket);
    if (this.#pending.size >= this.maxPending) this.#close(this.#pending.keys().next().value!);
    this.#arm(peer, socket, timeoutMs);
    socket.once('close', () => {
      if (this.#pending.get(peer)?.socket === socket) this.#forget(peer);
    });
  }

  /** A new deadline for a connection still pending, whose next step (a TLS handshake) has begun; it is now the newest. */
  rearm(socket: Socket, timeoutMs: number): void {
    const peer = peerOf(socket);
    if (this.#pending.get(peer)?.socket === socket) this.#arm(peer, socket, timeoutMs);
  }

  /** The connection (or the TLS socket over it) has spoken: no deadline any more. */
  settle(socket: Socket): void {
    this.#forget(peerOf(socket));
  }

  #forget(peer: string): void {
    clearTimeout(this.#pending.get(peer)?.deadline);
    this.#pending.delete(peer);
  }

  #arm(peer: string, socket: Socket, timeoutMs: number): void {
    clearTimeout(this.#pending.get(peer)?.deadline);
    this.#pending.delete(peer);
    this.#pending.set(peer, { socket, deadline: setTimeout(() => this.#close(peer), timeoutMs) });
  }

  /** Forgotten at once, not at its 'close' event: the next admission in this turn makes room with the next oldest. */
  #close(peer: string): void {
    const { socket } = this.#pending.get(peer)!;
    this.#forget(peer);
    socket.destroy();
  }
}

function peerOf(socket: Socket): string {
  return `${socket.remoteAddress}:${socket.remotePort}`;
}
