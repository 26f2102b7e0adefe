import { parseDuration } from '../../../src/shared/duration.js';
import { ORIGIN_LABEL, PROXY_ORIGIN } from '../../../src/main/xds/callbacks/dataplane-lifecycle.js';
import { resourceId, type DatabaseContents } from './database-check.js';

/** Label carrying a writer's sequence number, so that what is stored can be matched to the write that stored it. */
export const SEQ_LABEL = 'reliability.meshdesk.io/seq';

interface ResourceWrites {
  /** The last write answered with a 2xx: its stored version and sequence number. */
  acked?: { version: number; seq: number };
  /** Sent, not answered yet: it may or may not have landed when the process died. */
  inFlight?: number;
}

/** Duration settings, in milliseconds: the store keeps them in the user form it formats ("1m30s"). */
interface SettingWrites {
  acked?: number;
  inFlight?: number;
}

/**
 * The ledger of the crash harness: every write the control plane acknowledged (2xx, or a proxy's
 * first configuration for a registration) and the one write per key still in flight. Each key has
 * one writer at a time, so after a crash a key must hold its last acknowledged write, at least its
 * version, or the write that was in flight, and nothing else.
 */
export class AcknowledgedWrites {
  readonly #resources = new Map<string, ResourceWrites>();
  readonly #settings = new Map<string, SettingWrites>();
  /** Dataplanes registered by a proxy that got its first configuration. */
  readonly #registrations = new Set<string>();
  /** Acknowledged writes by kind, for the report. */
  readonly acknowledged = { resources: 0, settings: 0, registrations: 0 };

  /** Starts a write of a resource; returns its sequence number. */
  beginResource(id: string): number {
    const writes = this.#resources.get(id) ?? {};
    writes.inFlight = (writes.acked?.seq ?? 0) + 1;
    this.#resources.set(id, writes);
    return writes.inFlight;
  }

  acknowledgeResource(id: string, seq: number, version: number): void {
    this.#resources.set(id, { acked: { version, seq } });
    this.acknowledged.resources += 1;
  }

  beginSetting(name: string, value: number): void {
    const writes = this.#settings.get(name) ?? {};
    writes.inFlight = value;
    this.#settings.set(name, writes);
  }

  acknowledgeSetting(name: string, value: number): void {
    this.#settings.set(name, { acked: value });
    this.acknowledged.settings += 1;
  }

  acknowledgeRegistration(mesh: string, name: string): void {
    this.#registrations.add(resourceId('Dataplane', mesh, name));
    this.acknowledged.registrations += 1;
  }

  /** After a graceful stop the proxies' Dataplanes are deleted on purpose: stop expecting them. */
  forgetRegistrations(): void {
    this.#registrations.clear();
  }

  /** Every way `stored` breaks the guarantee, each naming the key and what was expected. */
  problems(stored: DatabaseContents): string[] {
    const problems: string[] = [];
    if (stored.integrity !== 'ok') problems.push(`integrity_check: ${stored.integrity}`);
    for (const [id, { acked, inFlight }] of this.#resources) {
      const resource = stored.resources.get(id);
      if (!acked) continue; // never acknowledged: absent and present are both fine
      if (!resource) {
        problems.push(`${id}: acknowledged at version ${acked.version} (seq ${acked.seq}) but missing`);
        continue;
      }
      const seq = Number(resource.labels[SEQ_LABEL]);
      const allowed = [acked.seq, ...(inFlight === undefined ? [] : [inFlight])];
      if (resource.version < acked.version) problems.push(`${id}: version ${resource.version} is older than the acknowledged ${acked.version}`);
      if (!allowed.includes(seq)) problems.push(`${id}: holds seq ${seq}, expected one of ${allowed.join(', ')}`);
    }
    for (const [name, { acked, inFlight }] of this.#settings) {
      if (acked === undefined) continue;
      const value = stored.settings.get(name);
      const ms = typeof value === 'string' ? parseDuration(value) : undefined;
      if (ms !== acked && ms !== inFlight) problems.push(`setting ${name}: holds ${String(value)}, acknowledged ${acked} ms`);
    }
    for (const id of this.#registrations) {
      const resource = stored.resources.get(id);
      if (resource?.labels[ORIGIN_LABEL] !== PROXY_ORIGIN) problems.push(`${id}: registration acknowledged (first config sent) but ${resource ? 'not labelled as registered by its proxy' : 'missing'}`);
    }
    return problems;
  }

  /** Writes still in flight at the stop that were stored nevertheless: their client saw an error for a write that happened. */
  storedButUnanswered(stored: DatabaseContents): number {
    let count = 0;
    for (const [id, { inFlight }] of this.#resources) {
      const resource = stored.resources.get(id);
      if (inFlight !== undefined && resource && Number(resource.labels[SEQ_LABEL]) === inFlight) count += 1;
    }
    return count;
  }

  /** After a checked crash, what is stored is what the next writes build on. */
  adopt(stored: DatabaseContents): void {
    for (const id of this.#resources.keys()) {
      const resource = stored.resources.get(id);
      this.#resources.set(id, resource ? { acked: { version: resource.version, seq: Number(resource.labels[SEQ_LABEL]) } } : {});
    }
    for (const name of this.#settings.keys()) {
      const value = stored.settings.get(name);
      this.#settings.set(name, typeof value === 'string' ? { acked: parseDuration(value) } : {});
    }
  }
}
