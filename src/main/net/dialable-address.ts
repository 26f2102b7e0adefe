/** A server bound to every interface is reached on loopback: a bootstrap needs an address to dial. */
export function dialableAddress({ host, port }: { host: string; port: number }): { host: string; port: number } {
  if (host === '0.0.0.0' || host === '') return { host: '127.0.0.1', port };
  if (host === '::' || host === '[::]') return { host: '::1', port };
  return { host, port };
}
