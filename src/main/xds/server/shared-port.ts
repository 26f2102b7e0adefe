import { createServer as createHttpServer, type RequestListener, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';

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
  readonly #http: HttpServer | undefined;
  /** Not listening: it only terminates the TLS connections handed to it. */
  readonly #tls: TlsServer | undefined;

  private constructor(server: NetServer, options: SharedPortOptions) {
    this.#server = server;
    if (options.tls) {
      const http = (this.#http = createHttpServer(options.tls.http));
      this.#tls = createTlsServer({ cert: options.tls.cert, key: options.tls.key, ALPNProtocols: ['h2', 'http/1.1'] });
      this.#tls.on('secureConnection', (secure) => dispatchDecrypted(secure, options.grpc, http));
      // A client that does not trust the certificate, or speaks no TLS, ends its own connection only.
      this.#tls.on('tlsClientError', (_error, secure) => secure.destroy());
    }
    server.on('connection', (socket) => this.#dispatch(socket, options.grpc));
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

  #dispatch(socket: Socket, grpc: (connection: Duplex) => void): void {
    socket.on('error', () => socket.destroy()); // a peer gone mid-handshake is not the server's error
    void firstBytes(socket).then((first) => {
      if (!first) return;
      if (first[0] === TLS_HANDSHAKE && this.#tls) this.#tls.emit('connection', socket);
      else grpc(socket);
    });
  }
}

/** kuma-dp's Envoy asks for no ALPN protocol yet speaks HTTP/2, so the decrypted bytes decide. */
function dispatchDecrypted(secure: TLSSocket, grpc: (connection: Duplex) => void, http: HttpServer): void {
  secure.on('error', () => secure.destroy());
  void firstBytes(secure).then((decrypted) => {
    if (!decrypted) return;
    if (decrypted.subarray(0, HTTP2_PREFACE_START.length).equals(HTTP2_PREFACE_START)) return grpc(secure);
    http.emit('connection', secure);
    // The HTTP server reads the peeked bytes back only from a flowing stream (HTTP/2 reads them itself).
    secure.resume();
  });
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
