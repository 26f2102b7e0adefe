import type { DiscoveryRequest, DiscoveryResponse } from '../protocol/ads-service.js';
import { holdsEveryResource } from '../protocol/type-urls.js';
import type { RequestClassification } from './callbacks.js';
import { resourceVersion, type SnapshotResource, type TypeSnapshot } from './snapshot.js';
import { Subscription, type DueResponse } from './subscription.js';

/**
 * State of the World rules for one type of one stream: each request carries the whole list of
 * names wanted, each response every resource subscribed to, and a request echoing an older nonce
 * than the latest sent is stale and ignored.
 */
export class SotwSubscription extends Subscription<DiscoveryRequest, DiscoveryResponse> {
  /** The legacy wildcard lasts while the client keeps sending no names. */
  #legacyWildcard = false;

  classify(request: DiscoveryRequest): RequestClassification {
    const kind: RequestClassification['kind'] =
      this.lastSent === undefined
        ? 'initial'
        : request.response_nonce !== this.lastSent.nonce
          ? 'stale'
          : request.error_detail
            ? 'nack'
            : 'ack';
    const version = request.version_info;
    if (kind === 'stale') return { kind, typeUrl: this.typeUrl, subscriptionChanged: false, version };
    const next = this.#interestIn(request);
    const subscriptionChanged =
      this.lastRequest === undefined || next.wildcard !== this.wildcard || !sameNames(next.names, this.names);
    return { kind, typeUrl: this.typeUrl, subscriptionChanged, version };
  }

  /** Applies a request that is not stale: records its ACK or NACK and takes its resource names. */
  apply(request: DiscoveryRequest, { kind }: RequestClassification): void {
    if (kind === 'ack') this.lastAcked = { version: request.version_info, nonce: request.response_nonce };
    if (kind === 'nack') {
      this.lastNack = {
        nonce: request.response_nonce,
        rejectedVersion: this.lastSent!.version,
        acceptedVersion: request.version_info,
        errorDetail: request.error_detail,
      };
    }
    const first = this.lastRequest === undefined;
    const next = this.#interestIn(request);
    const grown = next.wildcard ? !this.wildcard : [...next.names].some((name) => !this.names.has(name));
    if (holdsEveryResource(this.typeUrl) && (first || grown)) this.answerDue = true;
    this.wildcard = next.wildcard;
    this.#legacyWildcard = next.legacyWildcard;
    this.names = next.names;
    this.lastRequest = request;
    // A resource the client unsubscribed from is forgotten, so that subscribing again sends it again.
    if (!this.wildcard) this.returned = new Map([...this.returned].filter(([name]) => this.names.has(name)));
  }

  /**
   * Every subscribed resource that exists (all of them for a wildcard), once each, if any of them
   * is new or changed, or, for LDS/CDS, one went away or an answer is owed.
   */
  dueResponse(snapshot: TypeSnapshot, nonce: string): DueResponse<DiscoveryResponse> | undefined {
    if (this.lastRequest === undefined) return undefined; // never asked for this type
    const selected = this.covered(snapshot);
    if (!this.answerDue && !this.#differsFromSent(selected)) return undefined;
    return {
      response: { version_info: snapshot.version, resources: [...selected.values()].map(({ any }) => any), type_url: this.typeUrl, nonce },
      resourceNames: [...selected.keys()],
      returned: new Map([...selected].map(([name, resource]) => [name, resourceVersion(resource)])),
    };
  }

  /**
   * A resource missing from an LDS/CDS response is deleted on the client, so a removal is a change;
   * for RDS/EDS absence means nothing, so only new or changed resources count (a name that
   * disappears and comes back unchanged is not re-sent: the client still has it).
   */
  #differsFromSent(selected: ReadonlyMap<string, SnapshotResource>): boolean {
    for (const [name, resource] of selected) if (this.isNewToClient(name, resource)) return true;
    return holdsEveryResource(this.typeUrl) && [...this.returned.keys()].some((name) => !selected.has(name));
  }

  #interestIn(request: DiscoveryRequest): { wildcard: boolean; legacyWildcard: boolean; names: ReadonlySet<string> } {
    const requested = request.resource_names;
    const legacyWildcard = this.startsLegacyWildcard(requested) || (this.#legacyWildcard && requested.length === 0);
    return {
      wildcard: legacyWildcard || requested.includes('*'),
      legacyWildcard,
      names: new Set(requested.filter((name) => name !== '*')),
    };
  }
}

function sameNames(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((name) => b.has(name));
}

/** A SotW request carries all the client wants: the newer one says it, with the node the first one may have carried. */
export function coalesceSotwRequests(older: DiscoveryRequest, newer: DiscoveryRequest): DiscoveryRequest {
  return { ...newer, node: older.node ?? newer.node };
}
