// What happened to one proxy, as the core records it and the UI draws it: types, and how to read a stream's ending.

export type PostCreateStrategy = 'sleep' | 'invalidate' | 'none';
/** A generated resource that could not be encoded: the proxy keeps its last sent form (`kept`) or has none. */
export interface WithheldResource {
  typeUrl: string;
  name: string;
  /** The encoder's error, naming the resource and each field path. */
  reason: string;
  kept: boolean;
}

export type TickResult = 'skip' | 'generated' | 'changed' | 'dataplane-not-found' | 'error';

/**
 * How a stream ended, as the proxy was told: it went away itself, or meshdesk ended it with a gRPC
 * status (a refusal: its Dataplane is invalid, its token wrong, its node id taken…).
 */
export type StreamEnding =
  | { by: 'proxy' }
  | {
      by: 'control-plane';
      /** gRPC status code and its name (`FAILED_PRECONDITION`). */
      code: number;
      codeName: string;
      message: string;
      /** meshdesk was stopping and ended every stream (UNAVAILABLE, so that proxies reconnect): not a refusal. */
      shutdown?: true;
    };

/** meshdesk ended the stream because of the proxy (a refusal), not because it stopped or ended it cleanly. */
export function isRefusal(ending: StreamEnding | undefined): ending is Extract<StreamEnding, { by: 'control-plane' }> {
  return ending?.by === 'control-plane' && ending.code !== 0 && !ending.shutdown;
}

/**
 * What happened to one proxy. Times are epoch milliseconds with sub-millisecond precision
 * (`performance.timeOrigin + performance.now()`), so events from different callbacks can be
 * subtracted; some events carry a time from before they were recorded (a stream's opening, a
 * tick's start), so their order is `seq`, the order they were recorded in, not `at`.
 */
export type ProxyEvent = ProxyEventBody & {
  /** Recording order, increasing across every proxy's timeline. */
  seq: number;
};

/** An event as a callback records it; the timeline adds `seq`. */
export type ProxyEventBody =
  | {
      kind: 'stream-opened';
      at: number;
      streamId: number;
      /** `store.cache.expirationTime` in force when the stream opened: what its post-create wait and first generation wait out. */
      cacheExpirationMs: number;
    }
  | {
      kind: 'registered';
      at: number;
      /** `metadata`: the proxy brought its Dataplane (universal); `api`: it existed already. */
      origin: 'metadata' | 'api';
      created: boolean;
      version: number;
    }
  /** meshdesk's own wait starts (strategy sleep): it sleeps out the cache expiration until `endsAt`. */
  | { kind: 'post-create-wait-started'; at: number; strategy: PostCreateStrategy; endsAt: number }
  | { kind: 'post-create-wait'; at: number; strategy: PostCreateStrategy; startedAt: number; waitedMs: number; cause: string }
  | {
      kind: 'tick';
      at: number;
      result: TickResult;
      /** The tick's work: generation, encoding and reconcile when it generated, else the whole tick. */
      durationMs: number;
      /**
       * When it generated: how long it waited before, for the MeshContext and for its turn on the
       * event loop (not counting `certificate`).
       */
      queuedMs?: number;
      /** The tick issued the proxy's mesh mTLS identity certificate: when that began, and how long it took. */
      certificate?: { startedAt: number; durationMs: number };
      /** Why a tick missed or failed (`dataplane not found`, a generator error). */
      detail?: string;
      /** On `changed`: the snapshot version set per type URL, so ACKs can be matched to it. */
      versions?: Record<string, string>;
      /** Resources generated but not sent, as they could not be encoded: the proxy's configuration is stale. */
      withheld?: WithheldResource[];
    }
  | { kind: 'response'; at: number; typeUrl: string; version: string; nonce: string; resources: number }
  | { kind: 'ack'; at: number; typeUrl: string; version: string; nonce: string }
  | { kind: 'nack'; at: number; typeUrl: string; version: string; nonce: string; error: string }
  | { kind: 'response-dropped'; at: number; typeUrl: string; version: string; error: string }
  | { kind: 'stream-closed'; at: number; streamId: number; ending: StreamEnding }
  /** The proxy left; its proxy-registered Dataplane is deleted at `dueAt` unless it comes back first. */
  | { kind: 'deregistration-scheduled'; at: number; dueAt: number }
  | { kind: 'deregistered'; at: number }
  /**
   * meshdesk started again: the events before are from an earlier run, read back from the database
   * (never stored itself; the timeline puts it after what it restored).
   */
  | { kind: 'restarted'; at: number };

export type ProxyEventKind = ProxyEvent['kind'];
