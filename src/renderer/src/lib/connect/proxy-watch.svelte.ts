import type { ProxyStatus } from '../../../../shared/api-types.js';
import { isRefusal, type ProxyEvent } from '../../../../shared/proxy-events.js';
import { client } from '../api/index.js';
import { xdsTypeOf } from '../format/xds.js';

/**
 * How far the proxy being connected has come. `post-create-wait` is meshdesk's own wait (it
 * sleeps out the cache expiration after the proxy registered its Dataplane), not the proxy's;
 * `refused`: meshdesk ended its stream (`rejection` says with what).
 */
export type ConnectPhase = 'waiting' | 'connected' | 'post-create-wait' | 'no-dataplane' | 'acked' | 'rejected' | 'refused' | 'disconnected';

/**
 * Follows one proxy id (`mesh.name`) through the live `proxy.event` stream: stream opened →
 * registered → meshdesk's post-create wait → configuration ACKed (or NACKed), and back to
 * disconnected (or refused) when its stream closes.
 */
export class ProxyWatch {
  phase = $state<ConnectPhase>('waiting');
  /** Short types (`lds`, `cds`, …) the proxy has ACKed, in order. */
  acked = $state.raw<string[]>([]);
  rejection = $state<string>();
  /** During the post-create wait: when it ends (epoch ms). */
  waitEndsAt = $state<number>();
  /** This proxy registered its Dataplane from its metadata since the page opened (so it is its own). */
  registered = $state(false);

  /** Starts following `proxyId`; returns the function that stops. */
  follow(proxyId: string): () => void {
    this.phase = 'waiting';
    this.acked = [];
    this.rejection = undefined;
    this.waitEndsAt = undefined;
    this.registered = false;
    let heard = false;
    const stop = client.subscribe((event) => {
      if (event.topic !== 'proxy.event' || event.proxyId !== proxyId) return;
      heard = true;
      this.#apply(event.event);
    });
    // Already connected before the page opened: start from its status (the list, which never 404s).
    void client.proxies().then(({ items }) => {
      const status = items.find((each) => each.proxyId === proxyId);
      if (heard || !status) return;
      this.#start(status);
    });
    return stop;
  }

  #start(status: ProxyStatus): void {
    this.acked = status.types.filter((type) => type.lastAcked).map((type) => type.type);
    switch (status.state) {
      case 'waiting':
        this.phase = 'post-create-wait';
        this.waitEndsAt = status.waitEndsAt;
        break;
      case 'no-dataplane':
        this.phase = 'no-dataplane';
        break;
      case 'refused':
        this.phase = 'refused';
        this.rejection = status.refusal && `${status.refusal.codeName}: ${status.refusal.message}`;
        break;
      case 'connecting':
      case 'configured':
        this.phase = this.acked.length > 0 ? 'acked' : 'connected';
        break;
      case 'offline':
        break; // as if never seen: waiting for it to connect
    }
  }

  #apply(event: ProxyEvent): void {
    switch (event.kind) {
      case 'stream-opened':
        this.phase = 'connected';
        this.acked = [];
        this.rejection = undefined;
        break;
      case 'registered':
        if (event.origin === 'metadata') this.registered = true;
        break;
      case 'post-create-wait-started':
        this.phase = 'post-create-wait';
        this.waitEndsAt = event.endsAt;
        break;
      case 'post-create-wait':
        if (this.phase === 'post-create-wait') this.phase = 'connected';
        this.waitEndsAt = undefined;
        break;
      case 'tick':
        if (event.result === 'dataplane-not-found' && this.phase === 'connected') this.phase = 'no-dataplane';
        else if ((event.result === 'generated' || event.result === 'changed') && this.phase === 'no-dataplane') this.phase = 'connected';
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
        this.waitEndsAt = undefined;
        if (isRefusal(event.ending)) {
          this.phase = 'refused';
          this.rejection = `${event.ending.codeName}: ${event.ending.message}`;
        } else {
          this.phase = 'disconnected';
        }
        break;
    }
  }
}
