import type { Server } from 'node:net';

/** A listener could not bind: says which one, where, and what to do. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

/**
 * Binds a server and resolves with the bound port (useful with port 0). A taken port or a
 * forbidden address becomes a ListenError naming the listener, the address and the fix.
 */
export function listen(server: Server, options: { host: string; port: number; purpose: string }): Promise<number> {
  const { host, port, purpose } = options;
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const where = `${host}:${port}`;
      const reason =
        error.code === 'EADDRINUSE'
          ? `port ${port} is already in use (is another meshdesk running?); choose another port`
          : error.code === 'EACCES'
            ? `permission denied binding ${where}`
            : error.message;
      reject(new ListenError(`cannot start the ${purpose} on ${where}: ${reason}`, { cause: error }));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
