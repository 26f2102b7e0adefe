import type { ProxyEvent } from '../../../../shared/proxy-events.js';
import { client } from '../api/index.js';
import { xdsTypeOf } from '../format/xds.js';

/** How far the proxy being connected has come. */
export type ConnectPhase = 'waiting' | 'connected' | 'acked' | 'rejected' | 'disconnected';

/**
 * Follows one proxy id (`mesh.name`) through the live `proxy.event` stream: stream opened →
 * configuration ACKed (or NACKed), and back to disconnected when its stream closes.
 */
export class ProxyWatch {
  phase = $state<ConnectPhase>('waiting');
  /** Short types (`lds`, `cds`, …) the proxy has ACKed, in order. */
  acked = $state.raw<string[]>([]);
  rejection = $state<string>();

  /** Starts following `proxyId`; returns the function that stops. */
  follow(proxyId: string): () => void {
    this.phase = 'waiting';
    this.acked = [];
    this.rejection = undefined;
    let heard = false;
    const stop = client.subscribe((event) => {
      if (event.topic !== 'proxy.event' || event.proxyId !== proxyId) return;
      heard = true;
      this.#apply(event.event);
    });
    // Already connected before the page opened: start from its status (the list, which never 404s).
    void client.proxies().then(({ items }) => {
      const status = items.find((each) => each.proxyId === proxyId);
      if (heard || !status?.online) return;
      this.acked = status.types.filter((type) => type.lastAcked).map((type) => type.type);
      this.phase = this.acked.length > 0 ? 'acked' : 'connected';
    });
    return stop;
  }

  #apply(event: ProxyEvent): void {
    switch (event.kind) {
      case 'stream-opened':
        this.phase = 'connected';
        this.acked = [];
        this.rejection = undefined;
        break;
      case 'ack': {
        const type = xdsTypeOf(event.typeUrl);
        if (!this.acked.includes(type)) this.acked = [...this.acked, type];
        if (this.phase !== 'rejected') this.phase = 'acked';
        break;
      }
      case 'nack':
        this.phase = 'rejected';
        this.rejection = `${xdsTypeOf(event.typeUrl)}: ${event.error}`;
        break;
      case 'stream-closed':
        this.phase = 'disconnected';
        break;
    }
  }
}
