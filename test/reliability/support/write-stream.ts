import { CLUSTER_TYPE_URL } from '../../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../../src/main/xds/server/testing/raw-ads-client.js';
import { inboundPortOf, nodeWithDataplane, universalDataplane } from '../../../src/main/xds/callbacks/testing/control-plane.js';
import { SEQ_LABEL, type AcknowledgedWrites } from './acknowledged-writes.js';
import { resourceId } from './database-check.js';
import type { Random } from './seeded-random.js';

/** The keys the harness writes: each writer owns its keys, so a key never has two writes in flight. */
const API_DATAPLANES = ['api-dp-0', 'api-dp-1', 'api-dp-2', 'api-dp-3', 'api-dp-4', 'api-dp-5'];
const API_MESHES = ['mesh-0', 'mesh-1', 'mesh-2'];
const PROXIES = ['proxy-0', 'proxy-1', 'proxy-2', 'proxy-3'];
/** A live setting whose value changes nothing the harness depends on. */
const WRITTEN_SETTING = 'xds.nackBackoff';

export interface WriteStreamOptions {
  apiUrl: string;
  adsPort: number;
  ledger: AcknowledgedWrites;
  random: Random;
  /** Also register PROXIES through raw ADS clients kept open (default true). */
  registerProxies?: boolean;
}

/**
 * A stream of API writes (PUT Dataplane, PUT Mesh, PUT settings) and proxy registrations (raw ADS
 * clients with their Dataplane in node metadata) that runs until the control plane stops
 * answering. Every 2xx, and every proxy's first configuration, goes into the ledger.
 * Non-2xx answers are collected: nothing the harness sends is invalid, so there must be none.
 */
export class WriteStream {
  readonly unexpected: string[] = [];
  readonly #options: WriteStreamOptions;
  readonly #clients: RawAdsClient[] = [];
  readonly #done: Promise<unknown>;
  #stopped = false;

  constructor(options: WriteStreamOptions) {
    this.#options = options;
    const { random } = options;
    const shuffled = [...PROXIES].sort(() => random.next() - 0.5);
    this.#done = Promise.all([
      this.#writeResources('Dataplane', API_DATAPLANES.slice(0, 3)),
      this.#writeResources('Dataplane', API_DATAPLANES.slice(3)),
      this.#writeResources('Mesh', API_MESHES),
      this.#writeSettings(),
      options.registerProxies === false ? Promise.resolve() : this.#register(shuffled),
    ]);
  }

  /** Waits for every writer to notice the control plane is gone, then closes the proxies' streams. */
  async finished(): Promise<void> {
    this.#stopped = true;
    await this.#done;
    for (const client of this.#clients) client.close();
  }

  async #writeResources(type: 'Dataplane' | 'Mesh', names: string[]): Promise<void> {
    const { ledger } = this.#options;
    for (let round = 0; !this.#stopped; round++) {
      const name = names[round % names.length]!;
      const mesh = type === 'Mesh' ? '' : 'default';
      const id = resourceId(type, mesh, name);
      const seq = ledger.beginResource(id);
      const body = type === 'Mesh' ? { type, name, labels: { [SEQ_LABEL]: String(seq) } } : { ...universalDataplane('default', name, 'backend', inboundPortOf('default', name)), labels: { [SEQ_LABEL]: String(seq) } };
      const path = type === 'Mesh' ? `/meshes/${name}` : `/meshes/default/dataplanes/${name}`;
      const answer = await this.#put(path, body);
      if (answer === undefined) return;
      ledger.acknowledgeResource(id, seq, (answer as { version: number }).version);
    }
  }

  async #writeSettings(): Promise<void> {
    const { ledger, random } = this.#options;
    while (!this.#stopped) {
      const ms = random.int(1, 3_600_000);
      ledger.beginSetting(WRITTEN_SETTING, ms);
      const answer = await this.#put('/settings', { [WRITTEN_SETTING]: `${ms}ms` });
      if (answer === undefined) return;
      ledger.acknowledgeSetting(WRITTEN_SETTING, ms);
    }
  }

  /** Connects each proxy once, one after the other, and keeps its stream open: nothing deregisters before the kill. */
  async #register(proxies: string[]): Promise<void> {
    const { adsPort, ledger } = this.#options;
    for (const name of proxies) {
      if (this.#stopped) return;
      const client = new RawAdsClient(adsPort, nodeWithDataplane(`default.${name}`, universalDataplane('default', name, 'backend', inboundPortOf('default', name))));
      this.#clients.push(client);
      client.send(CLUSTER_TYPE_URL);
      // The first configuration comes after the registration was stored; a dead server ends the stream instead.
      const first = await Promise.race([client.next(), client.status.then(() => undefined)]);
      if (first === undefined) return;
      ledger.acknowledgeRegistration('default', name);
    }
  }

  /** The answer's JSON on a 2xx; undefined once the control plane is gone. */
  async #put(path: string, body: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.#options.apiUrl}${path}`, { method: 'PUT', body: JSON.stringify(body) });
    } catch {
      return undefined; // connection refused or reset: the process died
    }
    let text: string;
    try {
      text = await response.text();
    } catch {
      return undefined; // died while answering: not acknowledged
    }
    if (!response.ok) {
      this.unexpected.push(`PUT ${path} answered ${response.status}: ${text}`);
      return undefined;
    }
    return JSON.parse(text);
  }
}
