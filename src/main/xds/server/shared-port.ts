import { createServer as createHttpServer, type RequestListener, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { createServer as createHttp2Server, type Http2Server } from 'node:http2';
import { status } from '@grpc/grpc-js';
import { PendingConnections, type ConnectionLimits } from '../../net/connection-limits.js';

/** TLS on the ADS port, as Kuma serves its DP server: gRPC and plain HTTP requests share it. */
export interface SharedPortTls {
  cert: string;
  key: string;
  /** Serves the HTTP/1.1 requests that come over TLS (kuma-dp's `POST /bootstrap`). */
  http: RequestListener;
}

export interface SharedPortOptions {
  host: string;
  port: number;
  /** Where every gRPC connection goes, plaintext or TLS-terminated (grpc-js's connection injector). */
  grpc: (connection: Duplex) => void;
  tls?: SharedPortTls;
  limits: ConnectionLimits;
}

/** The first byte of a TLS ClientHello record (content type "handshake"). */
const TLS_HANDSHAKE = 0x16;
/** How an HTTP/2 connection starts (`PRI * HTTP/2.0`): no HTTP/1 method starts so. */
const HTTP2_PREFACE_START = Buffer.from('PRI', 'ascii');

/**
 * One listening port for everything a proxy speaks: plaintext gRPC as before (Envoy, gRPC's xDS
 * clients), and, when TLS is configured, TLS carrying either gRPC (kuma-dp's Envoy) or HTTP/1.1
 * (kuma-dp's bootstrap request). Each connection is told apart by its first bytes and handed over
 * whole; the bytes peeked are put back, so the receiver reads the connection from its start.
 */
export class SharedPort {
  readonly #server: NetServer;
  readonly #options: SharedPortOptions;
  readonly #http: HttpServer | undefined;
  /** Not listening: it only terminates the TLS connections handed to it. */
  readonly #tls: TlsServer | undefined;
  /** Connections that have not spoken yet (first byte, TLS handshake, first decrypted byte). */
  readonly #pending: PendingConnections;
  /** Connections handed to gRPC or HTTP and not closed yet. */
  #served = 0;
  /** Not listening: answers each stream of a gRPC connection over the bound with RESOURCE_EXHAUSTED. */
  #refusals: Http2Server | undefined;
  /** Refusing since the bound was reached: logged once each time, not per connection. */
  #refusing = false;

  private constructor(server: NetServer, options: SharedPortOptions) {
    this.#server = server;
    this.#options = options;
    this.#pending = new PendingConnections(options.limits.maxPending);
    if (options.tls) {
      const http = (this.#http = createHttpServer(options.tls.http));
      this.#tls = createTlsServer({ cert: options.tls.cert, key: options.tls.key, ALPNProtocols: ['h2', 'http/1.1'] });
      this.#tls.on('secureConnection', (secure) => this.#dispatchDecrypted(secure, http));
      // A client that does not trust the certificate, or speaks no TLS, ends its own connection only.
      this.#tls.on('tlsClientError', (_error, secure) => secure.destroy());
    }
    server.on('connection', (socket) => this.#dispatch(socket));
  }

  /** Listens on host:port (port 0 picks a free one); rejects with the listen error (e.g. EADDRINUSE). */
  static async listen(options: SharedPortOptions): Promise<{ port: SharedPort; boundPort: number }> {
    const server = createNetServer();
    const port = new SharedPort(server, options);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    return { port, boundPort: typeof address === 'object' && address ? address.port : options.port };
  }

  /** Stops accepting connections and ends the HTTP ones; gRPC connections are the gRPC server's to end. */
  close(): void {
    this.#server.close();
    this.#http?.closeAllConnections();
  }

  /** Connections served and pending now, for tests and the log. */
  get connections(): { served: number; pending: number } {
    return { served: this.#served, pending: this.#pending.size };
  }

  #dispatch(socket: Socket): void {
    socket.on('error', () => socket.destroy()); // a peer gone mid-handshake is not the server's error
    const limits = this.#options.limits;
    this.#pending.admit(socket, limits.firstByteTimeoutMs);
    void firstBytes(socket).then((first) => {
      if (!first) return;
      if (first[0] === TLS_HANDSHAKE && this.#tls) {
        // Still pending, with a deadline for the handshake and the first request after it.
        this.#pending.rearm(socket, limits.tlsHandshakeTimeoutMs);
        this.#tls.emit('connection', socket);
        return;
      }
      this.#pending.settle(socket);
      this.#serve(socket, 'grpc');
    });
  }

  /** kuma-dp's Envoy asks for no ALPN protocol yet speaks HTTP/2, so the decrypted bytes decide. */
  #dispatchDecrypted(secure: TLSSocket, http: HttpServer): void {
    secure.on('error', () => secure.destroy());
    void firstBytes(secure).then((decrypted) => {
      if (!decrypted) return;
      this.#pending.settle(secure);
      const grpc = decrypted.subarray(0, HTTP2_PREFACE_START.length).equals(HTTP2_PREFACE_START);
      if (!this.#serve(secure, grpc ? 'grpc' : 'http') || grpc) return;
      http.emit('connection', secure);
      // The HTTP server reads the peeked bytes back only from a flowing stream (HTTP/2 reads them itself).
      secure.resume();
    });
  }

  /**
   * Hands the connection over (gRPC here; HTTP by the caller, when this returns true), or refuses
   * it when `maxServed` are served already: a gRPC client is told RESOURCE_EXHAUSTED on its
   * stream, an HTTP one 503, each with the bound and what to do.
   */
  #serve(connection: Socket, protocol: 'grpc' | 'http'): boolean {
    const { maxServed } = this.#options.limits;
    if (this.#served >= maxServed) {
      if (!this.#refusing) console.warn(`meshdesk: the ADS port serves ${maxServed} connections, its most at once; refusing new ones until some close`);
      this.#refusing = true;
      this.#refuse(connection, protocol, `the ADS port serves at most ${maxServed} connections at once and all are in use; close unused proxies or clients and retry`);
      return false;
    }
    this.#served += 1;
    connection.once('close', () => {
      this.#served -= 1;
      this.#refusing = false;
    });
    if (protocol === 'grpc') this.#options.grpc(connection);
    return true;
  }

  #refuse(connection: Socket, protocol: 'grpc' | 'http', details: string): void {
    // A refused client that does not read its answer is cut like an idle one.
    const cut = setTimeout(() => connection.destroy(), this.#options.limits.firstByteTimeoutMs);
    connection.once('close', () => clearTimeout(cut));
    if (protocol === 'http') {
      const body = JSON.stringify({ title: 'Too many connections', detail: details });
      connection.end(
        `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    this.#refusals ??= refusalServer(details);
    this.#refusals.emit('connection', connection);
  }
}

/** Answers every gRPC stream with RESOURCE_EXHAUSTED ("Trailers-Only") and closes the connection. */
function refusalServer(details: string): Http2Server {
  const server = createHttp2Server();
  server.on('stream', (stream) => {
    stream.on('error', () => stream.destroy());
    stream.respond(
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(status.RESOURCE_EXHAUSTED), 'grpc-message': encodeURI(details) },
      { endStream: true },
    );
    stream.session?.close();
  });
  server.on('sessionError', () => {});
  return server;
}

/** The connection's first chunk, put back unread; undefined if it closed first. */
function firstBytes(socket: Socket): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const onData = (chunk: Buffer) => {
      socket.off('close', onClose);
      socket.pause();
      socket.unshift(chunk);
      resolve(chunk);
    };
    const onClose = () => {
      socket.off('data', onData);
      resolve(undefined);
    };
    socket.once('data', onData);
    socket.once('close', onClose);
    socket.resume();
  });
}
