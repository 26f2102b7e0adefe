// meshdesk's one rule beyond Kuma's Dataplane validation: two inbounds or outbounds of one Dataplane on
// the same address and port. Kuma accepts that Dataplane and Envoy then rejects the whole configuration
// it gets; on a local mesh saying so at once is kinder (test/kuma/known-differences.ts lists it).
import type { DataplaneSpec } from '../../shared/resources.js';
import { indexPath } from './field-path.js';
import type { ViolationList } from './validation-error.js';

/** Outbound listeners bind the loopback unless told otherwise. */
const LOOPBACK = '127.0.0.1';

export function checkListenersDoNotClash(networking: DataplaneSpec['networking'], violations: ViolationList): void {
  const listeners = [
    ...(networking.inbound ?? []).map((inbound, index) => ({
      path: indexPath('networking.inbound', index),
      address: inbound.address ?? networking.address,
      port: inbound.port,
    })),
    ...(networking.outbound ?? []).map((outbound, index) => ({
      path: indexPath('networking.outbound', index),
      address: outbound.address ?? LOOPBACK,
      port: outbound.port,
    })),
  ];
  const firstByAddressAndPort = new Map<string, string>();
  for (const listener of listeners) {
    const key = JSON.stringify([listener.address, listener.port]);
    const first = firstByAddressAndPort.get(key);
    if (first === undefined) {
      firstByAddressAndPort.set(key, listener.path);
    } else {
      violations.add(`${listener.path}.port`, `port ${listener.port} on ${listener.address} is already used by ${first}`);
    }
  }
}
