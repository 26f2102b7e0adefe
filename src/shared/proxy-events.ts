// What happened to one proxy, as the core records it and the UI draws it. Types only.

export type PostCreateStrategy = 'sleep' | 'invalidate' | 'none';
export type TickResult = 'skip' | 'generated' | 'changed' | 'dataplane-not-found' | 'error';

/**
 * What happened to one proxy, in order. Times are epoch milliseconds with sub-millisecond
 * precision (`performance.timeOrigin + performance.now()`), so events from different callbacks
 * can be ordered and subtracted.
 */
export type ProxyEvent =
  | { kind: 'stream-opened'; at: number; streamId: number }
  | {
      kind: 'registered';
      at: number;
      /** `metadata`: the proxy brought its Dataplane (universal); `api`: it existed already. */
      origin: 'metadata' | 'api';
      created: boolean;
      version: number;
    }
  | { kind: 'post-create-wait'; at: number; strategy: PostCreateStrategy; startedAt: number; waitedMs: number; cause: string }
  | {
      kind: 'tick';
      at: number;
      result: TickResult;
      /** The tick's work: generation, encoding and reconcile when it generated, else the whole tick. */
      durationMs: number;
      /** When it generated: how long it waited before, for the MeshContext and for its turn on the event loop. */
      queuedMs?: number;
      /** Why a tick missed or failed (`dataplane not found`, a generator error). */
      detail?: string;
      /** On `changed`: the snapshot version set per type URL, so ACKs can be matched to it. */
      versions?: Record<string, string>;
    }
  | { kind: 'response'; at: number; typeUrl: string; version: string; nonce: string; resources: number }
  | { kind: 'ack'; at: number; typeUrl: string; version: string; nonce: string }
  | { kind: 'nack'; at: number; typeUrl: string; version: string; nonce: string; error: string }
  | { kind: 'response-dropped'; at: number; typeUrl: string; version: string; error: string }
  | { kind: 'stream-closed'; at: number; streamId: number }
  | { kind: 'deregistered'; at: number };

export type ProxyEventKind = ProxyEvent['kind'];
