import type { DiscoveryRequest, DiscoveryResponse } from '../protocol/ads-service.js';
import { CLIENT_TEXT_LIMITS, clipClientText } from '../protocol/client-text.js';
import { holdsEveryResource } from '../protocol/type-urls.js';
import type { RequestClassification } from './callbacks.js';
import type { SnapshotResource, TypeSnapshot } from './snapshot.js';

/**
 * What one stream asked for and was sent, for one type URL (go-control-plane's stream.Subscription
 * plus its watch nonce). Rules from https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol
 * ("the spec" below), one per field.
 */
export class TypeSubscription {
  /**
   * Spec "How the client specifies what resources to return": LDS and CDS support a wildcard, by
   * the name `*` or, for compatibility, by a first request without names ("legacy wildcard"); the
   * legacy wildcard lasts while the client keeps sending no names.
   */
  wildcard = false;
  #legacyWildcard = false;
  /** Names explicitly subscribed, remembered even while they do not exist (spec: "resource does not exist" – they may appear). */
  names: ReadonlySet<string> = new Set();
  /** Spec "ACK and NACK semantics": each response has a nonce; a request echoing any older nonce is stale. */
  lastSent: { version: string; nonce: string; resourceNames: string[] } | undefined;
  /** The latest response the client accepted. */
  lastAcked: { version: string; nonce: string } | undefined;
  /** The latest rejection; the client keeps `acceptedVersion`, and so the server keeps serving it (no re-send of the rejected one). */
  lastNack: { nonce: string; rejectedVersion: string; acceptedVersion: string; errorDetail: DiscoveryRequest['error_detail'] } | undefined;
  /** A response that was due but not sent (see AdsServerOptions.maxResponseBytes). */
  lastDropped: { version: string; error: string } | undefined;
  /** The latest request acted on (not stale): the one a push answers. */
  lastRequest: DiscoveryRequest | undefined;
  /**
   * Encoded bytes of every resource in the last response: the server sends again only when what
   * the client is subscribed to differs (spec: "send only when resources change").
   */
  #sent = new Map<string, Uint8Array>();
  /**
   * LDS/CDS only: a response is owed even if no resource changed, because their responses also say
   * which resources do not exist (spec "Knowing when a requested resource does not exist"): set by
   * the first request and by a grown subscription.
   */
  #answerDue = false;

  constructor(readonly typeUrl: string) {}

  classify(request: DiscoveryRequest): RequestClassification {
    const kind: RequestClassification['kind'] =
      this.lastSent === undefined
        ? 'initial'
        : request.response_nonce !== this.lastSent.nonce
          ? 'stale'
          : request.error_detail
            ? 'nack'
            : 'ack';
    if (kind === 'stale') return { kind, typeUrl: this.typeUrl, subscriptionChanged: false };
    const next = this.#interestIn(request);
    const subscriptionChanged =
      this.lastRequest === undefined || next.wildcard !== this.wildcard || !sameNames(next.names, this.names);
    return { kind, typeUrl: this.typeUrl, subscriptionChanged };
  }

  /**
   * Applies a request that is not stale: records its ACK or NACK and takes its resource names.
   * A NACK's message is kept clipped (see client-text.ts).
   */
  apply(received: DiscoveryRequest, { kind }: RequestClassification): void {
    const request = withClippedErrorDetail(received);
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
    if (holdsEveryResource(this.typeUrl) && (first || grown)) this.#answerDue = true;
    this.wildcard = next.wildcard;
    this.#legacyWildcard = next.legacyWildcard;
    this.names = next.names;
    this.lastRequest = request;
    // A resource the client unsubscribed from is forgotten, so that subscribing again sends it again.
    if (!this.wildcard) for (const name of this.#sent.keys()) if (!this.names.has(name)) this.#sent.delete(name);
  }

  /**
   * The resources of the next response, or undefined when none is due: every subscribed resource
   * that exists (all of them for a wildcard), once each, if any of them is new or changed, or, for
   * LDS/CDS, one went away or an answer is owed.
   */
  dueResources(snapshot: TypeSnapshot): Map<string, SnapshotResource> | undefined {
    if (this.lastRequest === undefined) return undefined; // never asked for this type
    const selected = new Map<string, SnapshotResource>();
    if (this.wildcard) {
      for (const [name, resource] of snapshot.resources) selected.set(name, resource);
    } else {
      for (const name of this.names) {
        const resource = snapshot.resources.get(name);
        if (resource) selected.set(name, resource);
      }
    }
    return this.#answerDue || this.#differsFromSent(selected) ? selected : undefined;
  }

  recordSent(response: DiscoveryResponse, resources: ReadonlyMap<string, SnapshotResource>): void {
    this.lastSent = { version: response.version_info, nonce: response.nonce, resourceNames: [...resources.keys()] };
    this.#sent = new Map([...resources].map(([name, { any }]) => [name, any.value]));
    this.#answerDue = false;
    this.lastDropped = undefined;
  }

  recordDropped(version: string, error: Error): void {
    this.lastDropped = { version, error: error.message };
  }

  /**
   * A resource missing from an LDS/CDS response is deleted on the client, so a removal is a change;
   * for RDS/EDS absence means nothing, so only new or changed resources count (a name that
   * disappears and comes back unchanged is not re-sent: the client still has it).
   */
  #differsFromSent(selected: ReadonlyMap<string, SnapshotResource>): boolean {
    for (const [name, { any }] of selected) {
      const sent = this.#sent.get(name);
      if (!sent || Buffer.compare(sent, any.value) !== 0) return true;
    }
    return holdsEveryResource(this.typeUrl) && [...this.#sent.keys()].some((name) => !selected.has(name));
  }

  #interestIn(request: DiscoveryRequest): { wildcard: boolean; legacyWildcard: boolean; names: ReadonlySet<string> } {
    const requested = request.resource_names;
    const legacyWildcard =
      requested.length === 0 && holdsEveryResource(this.typeUrl) && (this.lastRequest === undefined || this.#legacyWildcard);
    return {
      wildcard: legacyWildcard || requested.includes('*'),
      legacyWildcard,
      names: new Set(requested.filter((name) => name !== '*')),
    };
  }
}

function withClippedErrorDetail(request: DiscoveryRequest): DiscoveryRequest {
  const detail = request.error_detail;
  if (!detail) return request;
  // Its `details` (Anys) are not read here; only the code and message are shown.
  return { ...request, error_detail: { code: detail.code, message: clipClientText(detail.message ?? '', CLIENT_TEXT_LIMITS.message) } };
}

function sameNames(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((name) => b.has(name));
}
