// What `GET /demo` answers: the demo mesh's state, for the UI's "Start a demo mesh". Types only.

export type DemoState = 'stopped' | 'starting' | 'running' | 'stopping';

export interface DemoStatus {
  state: DemoState;
  /** The demo's own mesh. */
  mesh: string;
  /** Epoch ms the demo was started (while starting or running). */
  startedAt?: number;
  /** Node ids of the demo's proxies: Envoy-like sidecars, then the gRPC client. */
  proxies: string[];
  /** What the proxyless gRPC client's calls got so far (while running). */
  greeter?: { ok: number; byVersion: Record<string, number>; failed: number; lastError?: string };
  /** Why the last start failed (everything it had started was stopped and removed again). */
  error?: string;
  /** Epoch ms the demo last stopped (since this meshdesk started): its proxies stay listed as departed. */
  stoppedAt?: number;
  /** Resources the last stop left in place because they changed since the demo wrote them, as `Type mesh/name`. */
  kept?: string[];
}
