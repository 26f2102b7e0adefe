import type { DeltaDiscoveryRequest, DeltaDiscoveryResponse, DeltaResource } from '../protocol/ads-service.js';
import type { RequestClassification } from './callbacks.js';
import { resourceVersion, type TypeSnapshot } from './snapshot.js';
import { Subscription, type DueResponse } from './subscription.js';

/**
 * Responses sent and not yet ACKed or NACKed that a delta subscription still recognises by nonce.
 * A client answers each response in order, so more than a few outstanding means it stopped
 * answering; the oldest are forgotten (an answer to one of them is then taken as an update).
 */
const MAX_UNANSWERED = 16;

/**
 * Incremental ("delta") rules for one type of one stream (spec "Incremental xDS"): requests add
 * and remove names, responses carry only new or changed resources, each with its own version, and
 * name the ones removed. Unlike State of the World, no request is ever ignored: each one's
 * subscription changes count, whatever nonce it echoes (go-control-plane's delta server does the same).
 */
export class DeltaSubscription extends Subscription<DeltaDiscoveryRequest, DeltaDiscoveryResponse> {
  /** The system version of each response not yet answered, by nonce: what an ACK accepts. */
  readonly #unanswered = new Map<string, string>();

  classify(request: DeltaDiscoveryRequest): RequestClassification {
    const typeUrl = this.typeUrl;
    const accepted = this.lastAcked?.version ?? '';
    const subscriptionChanged = this.#changesSubscription(request);
    if (this.lastRequest === undefined) return { kind: 'initial', typeUrl, subscriptionChanged: true, version: accepted };
    // Spec: the nonce is set on an ACK or NACK only; a request without one (or with one this stream
    // no longer knows) only changes the subscription.
    const answered = this.#unanswered.get(request.response_nonce);
    if (!request.response_nonce || answered === undefined) return { kind: 'update', typeUrl, subscriptionChanged, version: accepted };
    if (request.error_detail) return { kind: 'nack', typeUrl, subscriptionChanged, version: accepted };
    return { kind: 'ack', typeUrl, subscriptionChanged, version: answered };
  }

  apply(request: DeltaDiscoveryRequest, { kind, version }: RequestClassification): void {
    const nonce = request.response_nonce;
    if (kind === 'ack') this.lastAcked = { version, nonce };
    if (kind === 'nack') {
      this.lastNack = { nonce, rejectedVersion: this.#unanswered.get(nonce)!, acceptedVersion: version, errorDetail: request.error_detail };
    }
    if (kind === 'ack' || kind === 'nack') this.#forgetUpTo(nonce);

    const names = new Set(this.names);
    const returned = new Map(this.returned);
    const first = this.lastRequest === undefined;
    if (first) {
      this.wildcard = this.startsLegacyWildcard(request.resource_names_subscribe);
      // The client keeps these from its previous stream: not sent again unless they changed.
      for (const [name, resourceVersion] of Object.entries(request.initial_resource_versions)) returned.set(name, resourceVersion);
    }
    for (const name of request.resource_names_subscribe) {
      if (name === '*') this.wildcard = true;
      else names.add(name);
      // Spec (DeltaDiscoveryRequest): every name subscribed is answered, even if the server believes
      // the client has it: it may have dropped it and asked again before its unsubscribe arrived.
      if (!first) returned.delete(name);
    }
    for (const name of request.resource_names_unsubscribe) {
      if (name === '*') {
        this.wildcard = false;
        continue;
      }
      names.delete(name);
      // Still covered by the wildcard: the client is told where it stands, sent again if it exists
      // or removed if not (an empty version differs from every version). Otherwise forgotten.
      if (!this.wildcard) returned.delete(name);
      else if (returned.has(name)) returned.set(name, '');
    }
    // Spec: the first wildcard request is answered even when there is nothing to send.
    if (first && this.wildcard) this.answerDue = true;
    this.names = names;
    this.returned = returned;
    this.lastRequest = request;
  }

  /** The covered resources whose version the client does not have, and the names it has that are gone. */
  dueResponse(snapshot: TypeSnapshot, nonce: string): DueResponse<DeltaDiscoveryResponse> | undefined {
    if (this.lastRequest === undefined) return undefined; // never asked for this type
    const covered = this.covered(snapshot);
    const resources: DeltaResource[] = [];
    const returned = new Map<string, string>();
    for (const [name, resource] of covered) {
      const version = resourceVersion(resource);
      returned.set(name, version);
      if (this.isNewToClient(name, resource)) resources.push({ name, version, resource: resource.any });
    }
    // Without the wildcard, a name the client has but no longer subscribes to is its own business.
    const removed = [...this.returned.keys()].filter(
      (name) => !covered.has(name) && (this.wildcard || this.names.has(name)),
    );
    if (resources.length === 0 && removed.length === 0 && !this.answerDue) return undefined;
    return {
      response: { system_version_info: snapshot.version, resources, type_url: this.typeUrl, removed_resources: removed, nonce },
      resourceNames: resources.map(({ name }) => name),
      returned,
    };
  }

  override recordSent(due: DueResponse<DeltaDiscoveryResponse>, version: string): void {
    super.recordSent(due, version);
    this.#unanswered.set(due.response.nonce, version);
    if (this.#unanswered.size > MAX_UNANSWERED) this.#unanswered.delete(this.#unanswered.keys().next().value!);
  }

  /** Responses are answered in order: an answer to one settles every earlier one too. */
  #forgetUpTo(nonce: string): void {
    for (const sent of [...this.#unanswered.keys()]) {
      this.#unanswered.delete(sent);
      if (sent === nonce) return;
    }
  }

  #changesSubscription(request: DeltaDiscoveryRequest): boolean {
    const subscribes = request.resource_names_subscribe.some((name) => (name === '*' ? !this.wildcard : !this.names.has(name)));
    const unsubscribes = request.resource_names_unsubscribe.some((name) => (name === '*' ? this.wildcard : this.names.has(name)));
    return subscribes || unsubscribes;
  }
}

/**
 * Delta requests add and remove names: the two requests' changes, applied in order, make one. The
 * ACK or NACK is the newer one's if it answers a response, else the older one's.
 */
export function coalesceDeltaRequests(older: DeltaDiscoveryRequest, newer: DeltaDiscoveryRequest): DeltaDiscoveryRequest {
  const subscribe = new Set(older.resource_names_subscribe);
  const unsubscribe = new Set(older.resource_names_unsubscribe);
  for (const name of newer.resource_names_subscribe) {
    unsubscribe.delete(name);
    subscribe.add(name);
  }
  for (const name of newer.resource_names_unsubscribe) {
    subscribe.delete(name);
    unsubscribe.add(name);
  }
  const answer = newer.response_nonce ? newer : older;
  return {
    node: older.node ?? newer.node,
    type_url: newer.type_url,
    resource_names_subscribe: [...subscribe],
    resource_names_unsubscribe: [...unsubscribe],
    initial_resource_versions: { ...older.initial_resource_versions, ...newer.initial_resource_versions },
    response_nonce: answer.response_nonce,
    error_detail: answer.error_detail,
  };
}
