import type { Metrics } from '../../metrics/metrics.js';
import type { ProxyIdentities, ProxyIdentity } from '../../mtls/proxy-identities.js';
import type { ConnectedProxy } from '../callbacks/proxy-callbacks.js';
import type { MeshContext } from '../context/mesh-context.js';
import type { GeneratedProxy } from '../../policies/core/apply-plugins.js';
import { generateProxy } from '../generate/profile.js';
import type { Proxy } from '../generate/proxy.js';
import { unappliedOfWithheld, type PolicyEffects } from '../status/policy-effects.js';
import { now, type ProxyEventBody, type ProxyTimeline, type TickResult } from '../status/proxy-timeline.js';
import { EVENT_LOOP_SLICE } from '../server/time-slice.js';
import { meshContextVersions, policyChangesBetween, type PolicyVersions } from './policy-changes.js';
import type { SnapshotReconciler } from './reconcile.js';

/** Where a tick gets its MeshContext (MeshContextCache). */
export interface MeshContextSource {
  get(mesh: string): Promise<MeshContext>;
}

export type WatchedProxy = Pick<ConnectedProxy, 'proxyId' | 'dataplaneKey' | 'kind' | 'features' | 'workDir' | 'userAgent'>;

export interface DataplaneWatchdogOptions {
  proxy: WatchedProxy;
  meshContexts: MeshContextSource;
  reconciler: SnapshotReconciler;
  timeline: ProxyTimeline;
  metrics: Metrics;
  /** Where the policy effects of each generation go, for the Proxy detail to read. */
  policyEffects?: PolicyEffects;
  /** Issues the proxy's mTLS identity when its mesh has mTLS on; none, no identity (tests of other things). */
  identities?: Pick<ProxyIdentities, 'identityFor'>;
  /** The proxy's configuration from a context; its kind's profile and the policy plugins unless a test brings its own. */
  generate?: (context: MeshContext, proxy: Proxy) => GeneratedProxy;
}

/** What a tick found, as the timeline records it. */
type TickOutcome = Omit<Extract<ProxyEventBody, { kind: 'tick' }>, 'kind' | 'at' | 'durationMs' | 'queuedMs' | 'certificate'>;

// The frequent outcomes are shared objects: a skip tick runs every interval for every proxy.
const SKIP: TickOutcome = Object.freeze({ result: 'skip' });
/** The 'none' post-create strategy's visible miss: the cached context predates the Dataplane. */
const DATAPLANE_NOT_FOUND: TickOutcome = Object.freeze({ result: 'dataplane-not-found', detail: 'dataplane not found' });

/** When a tick started generating (unset if it did not), the certificate it issued, and when it had its outcome. */
interface TickTiming {
  generatingSince?: number;
  certificate?: { startedAt: number; durationMs: number };
  finishedAt?: number;
}

/**
 * What one tick does for one proxy (Kuma's DataplaneWatchdog.Sync): get the MeshContext; skip when
 * its hash is the one last generated from; otherwise generate and reconcile, `changed` when a new
 * snapshot was published and `generated` when the proxy's configuration came out the same. Every
 * tick is recorded on the proxy's timeline and timed in `xds_generation{result}`: a tick that
 * generates is timed from when it started generating, its wait before (for the MeshContext and
 * its turn on the event loop) recorded apart, so that a storm's queueing does not read as slow
 * generation.
 */
export class DataplaneWatchdog {
  readonly #proxy: WatchedProxy;
  readonly #meshContexts: MeshContextSource;
  readonly #reconciler: SnapshotReconciler;
  readonly #timeline: ProxyTimeline;
  readonly #metrics: Metrics;
  readonly #policyEffects: PolicyEffects | undefined;
  readonly #generate: (context: MeshContext, proxy: Proxy) => GeneratedProxy;
  readonly #identities: DataplaneWatchdogOptions['identities'];
  /** Hash of the context and serial of the identity the snapshot in place was generated from; unset until a generation succeeds. */
  #lastInputs: string | undefined;
  /** The serial of the identity the last tick got: another one was issued since. */
  #lastSerial: string | undefined;
  /** The policies of the context the last published snapshot came from: the next one names what changed since. */
  #publishedPolicies: PolicyVersions | undefined;

  constructor(options: DataplaneWatchdogOptions) {
    this.#proxy = options.proxy;
    this.#meshContexts = options.meshContexts;
    this.#reconciler = options.reconciler;
    this.#timeline = options.timeline;
    this.#metrics = options.metrics;
    this.#policyEffects = options.policyEffects;
    this.#generate = options.generate ?? ((context, proxy) => generateProxy(context, proxy));
    this.#identities = options.identities;
  }

  /**
   * Runs one tick and returns its result; never throws (a failure is an `error` tick, and the
   * snapshot in place stays). Returns undefined, recording and publishing nothing, when `signal`
   * aborted while the context was loading: the proxy has gone.
   */
  async sync(signal?: AbortSignal): Promise<TickResult | undefined> {
    const startedAt = now();
    const tick: TickTiming = {};
    const outcome = await this.#sync(signal, tick);
    if (outcome === undefined) return undefined;
    const at = tick.finishedAt!;
    const workStartedAt = tick.generatingSince ?? startedAt;
    const durationMs = at - workStartedAt;
    const certificate = tick.certificate && { certificate: tick.certificate };
    const issuingMs = tick.certificate?.durationMs ?? 0;
    const queued = tick.generatingSince === undefined ? {} : { queuedMs: workStartedAt - startedAt - issuingMs };
    this.#timeline.record(this.#proxy.proxyId, { kind: 'tick', at, durationMs, ...queued, ...certificate, ...outcome });
    this.#metrics.xdsGeneration.observe({ result: outcome.result }, durationMs / 1_000);
    return outcome.result;
  }

  /**
   * Stamps `tick.finishedAt` as it returns an outcome: the caller's continuation runs only after
   * the microtasks queued before it, which in a storm are other proxies' generations.
   */
  async #sync(signal: AbortSignal | undefined, tick: TickTiming): Promise<TickOutcome | undefined> {
    const finished = (outcome: TickOutcome) => {
      tick.finishedAt = now();
      return outcome;
    };
    const { proxyId, dataplaneKey, kind, features, workDir, userAgent } = this.#proxy;
    let context: MeshContext;
    try {
      context = await this.#meshContexts.get(dataplaneKey.mesh);
    } catch (error) {
      if (signal?.aborted) return undefined;
      return finished({ result: 'error', detail: `cannot read mesh "${dataplaneKey.mesh}" for proxy "${proxyId}": ${message(error)}` });
    }
    if (signal?.aborted) return undefined;
    const dataplane = context.dataplanesByName.get(dataplaneKey.name);
    if (!dataplane) return finished(DATAPLANE_NOT_FOUND);
    // The identity is renewed here (before 4/5 of its lifetime, or when its inputs changed), so a
    // rotation reaches the proxy at its next tick even when nothing else changed.
    let identity: ProxyIdentity | undefined;
    try {
      const issuingSince = now();
      identity = await this.#identities?.identityFor(context.mesh, { id: proxyId, kind, dataplane });
      // A new serial is a certificate issued now (key pair and signature, 0.1–1 s on a busy
      // laptop): timed apart, so that it does not read as waiting for the mesh's view.
      if (identity && identity.serial !== this.#lastSerial) tick.certificate = { startedAt: issuingSince, durationMs: now() - issuingSince };
      this.#lastSerial = identity?.serial;
    } catch (error) {
      if (signal?.aborted) return undefined;
      return finished({ result: 'error', detail: `cannot issue the mTLS identity of proxy "${proxyId}": ${message(error)}` });
    }
    if (signal?.aborted) return undefined;
    // The hash covers every input of the configuration but the identity; the proxy's id, kind,
    // features, work directory and user agent are fixed for this watchdog's life (a reconnecting proxy gets a new one), so equal
    // inputs mean equal config.
    const inputs = identity === undefined ? context.hash : `${context.hash}\n${identity.serial}`;
    if (inputs === this.#lastInputs) return finished(SKIP);
    // Many proxies generate at once after a change: take turns with the event loop.
    await EVENT_LOOP_SLICE.yieldWhenBusy();
    // That was the tick's last wait: from here on everything runs at once, so a proxy that
    // disconnected meanwhile cannot have a snapshot published after its disconnect cleared it.
    if (signal?.aborted) return undefined;
    tick.generatingSince = now();
    try {
      const proxy: Proxy = {
        id: proxyId,
        dataplane,
        kind,
        features,
        ...(workDir !== undefined && { workDir }),
        ...(userAgent !== undefined && { userAgent }),
        ...(identity && { identity }),
      };
      const { resources, attributions, unapplied } = this.#generate(context, proxy);
      const policies = meshContextVersions(context);
      // A connection's first snapshot has no previous one here to compare with: it names no change.
      const policyChanges = this.#publishedPolicies ? policyChangesBetween(this.#publishedPolicies, policies) : [];
      const { versions, changedTypes, withheld } = this.#reconciler.reconcile(proxyId, resources, policyChanges);
      if (changedTypes.length > 0) this.#publishedPolicies = policies;
      const notSent = withheld.length === 0 ? unapplied : [...unapplied, ...unappliedOfWithheld(withheld, attributions)];
      this.#policyEffects?.set({ proxyId, versions, attributions, unapplied: notSent });
      this.#lastInputs = inputs;
      const outcome: TickOutcome = changedTypes.length > 0 ? { result: 'changed', versions } : { result: 'generated' };
      return finished(withheld.length === 0 ? outcome : { ...outcome, withheld });
    } catch (error) {
      return finished({ result: 'error', detail: message(error) });
    }
  }
}

/** Generator and reconcile errors already name the proxy and the failing generator or resource. */
function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
