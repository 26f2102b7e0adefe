import type { DiscoveryRequest, XdsRequest, XdsResponse } from '../protocol/ads-service.js';
import { CLIENT_TEXT_LIMITS, clipClientText } from '../protocol/client-text.js';
import { holdsEveryResource } from '../protocol/type-urls.js';
import type { RequestClassification } from './callbacks.js';
import { resourceVersion, type SnapshotResource, type TypeSnapshot } from './snapshot.js';

/** A response a subscription owes its client now, before the stream numbers it. */
export interface DueResponse<Response extends XdsResponse> {
  response: Response;
  /** The names of the resources it carries. */
  resourceNames: string[];
  /** The version of every resource the client has once it gets this response (see Subscription.returned). */
  returned: ReadonlyMap<string, string>;
}

/**
 * What one stream asked for and was sent, for one type URL: the per-stream protocol state both
 * protocols share (go-control-plane's stream.Subscription plus its watch nonce). What a request
 * means and what a response holds differ by protocol: SotwSubscription and DeltaSubscription
 * implement those rules. Rules from https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol
 * ("the spec" below), one per field.
 */
export abstract class Subscription<Request extends XdsRequest, Response extends XdsResponse> {
  /**
   * Spec "How the client specifies what resources to return": LDS and CDS support a wildcard, by
   * the name `*` or, for compatibility, by a first request without names ("legacy wildcard").
   */
  wildcard = false;
  /** Names explicitly subscribed, remembered even while they do not exist (spec: "resource does not exist" – they may appear). */
  names: ReadonlySet<string> = new Set();
  /** Spec "ACK and NACK semantics": each response has a nonce, which the client's ACK or NACK echoes. */
  lastSent: { version: string; nonce: string; resourceNames: string[] } | undefined;
  /** The latest response the client accepted. */
  lastAcked: { version: string; nonce: string } | undefined;
  /** The latest rejection; the client keeps `acceptedVersion`, and so the server keeps serving it (no re-send of the rejected one). */
  lastNack: { nonce: string; rejectedVersion: string; acceptedVersion: string; errorDetail: DiscoveryRequest['error_detail'] } | undefined;
  /** A response that was due but not sent (see AdsServerOptions.maxResponseBytes). */
  lastDropped: { version: string; error: string } | undefined;
  /** The latest request acted on: the one a push answers. */
  lastRequest: Request | undefined;
  /**
   * What the client has, by name: the version (resourceVersion, a content hash) of each resource
   * it was sent. The server sends a resource again only when its version differs (spec "When to
   * send an update"); on delta this is also what `initial_resource_versions` seeds.
   */
  protected returned: ReadonlyMap<string, string> = new Map();
  /**
   * A response is owed even if no resource changed: LDS/CDS responses also say which resources do
   * not exist (spec "Knowing when a requested resource does not exist"), and a first wildcard
   * request is answered even if empty, or the client never finishes initialising.
   */
  protected answerDue = false;

  constructor(readonly typeUrl: string) {}

  /** What the request is (initial, ack, nack, stale, update), decided once for the stream and every callback. */
  abstract classify(request: Request): RequestClassification;

  /**
   * Takes a request the stream acts on: records its ACK or NACK and its subscription changes. The
   * stream hands it over with its NACK message clipped (withClippedErrorDetail).
   */
  abstract apply(request: Request, classification: RequestClassification): void;

  /** The response due for the type's snapshot, numbered `nonce`, or undefined when none is due. */
  abstract dueResponse(snapshot: TypeSnapshot, nonce: string): DueResponse<Response> | undefined;

  recordSent({ response, resourceNames, returned }: DueResponse<Response>, version: string): void {
    this.lastSent = { version, nonce: response.nonce, resourceNames };
    this.returned = returned;
    this.answerDue = false;
    this.lastDropped = undefined;
  }

  recordDropped(version: string, error: Error): void {
    this.lastDropped = { version, error: error.message };
  }

  /** Spec: a type's first request naming nothing subscribes LDS and CDS to the wildcard ("legacy wildcard"). */
  protected startsLegacyWildcard(requestedNames: readonly string[]): boolean {
    return this.lastRequest === undefined && requestedNames.length === 0 && holdsEveryResource(this.typeUrl);
  }

  /** The snapshot's resources this subscription covers: every one for a wildcard, else the subscribed names that exist. */
  protected covered(snapshot: TypeSnapshot): Map<string, SnapshotResource> {
    if (this.wildcard) return new Map(snapshot.resources);
    const selected = new Map<string, SnapshotResource>();
    for (const name of this.names) {
      const resource = snapshot.resources.get(name);
      if (resource) selected.set(name, resource);
    }
    return selected;
  }

  /** Whether the client was sent this resource at another version, or never. */
  protected isNewToClient(name: string, resource: SnapshotResource): boolean {
    return this.returned.get(name) !== resourceVersion(resource);
  }
}

/** The request with its NACK message clipped (see client-text.ts), as a subscription keeps it. */
export function withClippedErrorDetail<Request extends XdsRequest>(request: Request): Request {
  const detail = request.error_detail;
  if (!detail) return request;
  // Its `details` (Anys) are not read here; only the code and message are shown.
  return { ...request, error_detail: { code: detail.code, message: clipClientText(detail.message ?? '', CLIENT_TEXT_LIMITS.message) } };
}
