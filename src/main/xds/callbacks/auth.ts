import { status } from '@grpc/grpc-js';
import type { Settings } from '../../config/settings.js';
import type { DataplaneTokens, TokenSubject } from '../../security/dataplane-tokens.js';
import { tokenRequirement } from '../../security/token-requirement.js';
import type { MeshResource } from '../../../shared/resources.js';
import { DATAPLANE_TOKEN_METADATA_KEY } from '../generate/bootstrap.js';
import {
  StreamError,
  type Callbacks,
  type StreamClosedEvent,
  type StreamOpenEvent,
  type StreamRequestEvent,
} from '../server/callbacks.js';
import { parseProxyId } from './proxy-id.js';

interface OpenStream {
  peer: string;
  openedAt: Date;
  /** Set once the stream's first request is accepted. */
  proxyId?: string;
  subject?: TokenSubject;
  /** The token its node metadata carried, to check again when tokens, meshes or the setting change. */
  token?: unknown;
}

export interface AuthOptions {
  /** Per-Dataplane tokens; without them (tests of other concerns) no token is ever required. */
  tokens?: DataplaneTokens;
  /** `xds.dataplaneTokens`, read on every connect and followed live. */
  settings?: Pick<Settings, 'get' | 'onChange'>;
  /** Ends a live stream whose token no longer holds (AdsServer.closeStream). */
  endStream?: (streamId: number, finalStatus: { code: status; details: string }) => void;
  /** The mesh as stored now (undefined when absent): whether it has mTLS decides if a token is required. */
  meshOf?: (mesh: string) => Promise<MeshResource | undefined>;
}

/**
 * First in the chain: decides who may speak for a node id.
 *
 * A node id is held by at most one live stream, from its accepted first request to its close; a
 * second stream with the same id is refused with ALREADY_EXISTS, so two processes started with
 * one bootstrap never fight over one Dataplane.
 *
 * Where `xds.dataplaneTokens` requires it (by default: in meshes with mTLS on, whose proxies are
 * sent private keys; `security/token-requirement.ts`), the first request must also carry the
 * Dataplane's token in node metadata `meshdesk.token` (node metadata rather than gRPC call
 * metadata, because gRPC's own xDS clients can only set the former, from their bootstrap file);
 * otherwise the stream is refused with UNAUTHENTICATED, before anything else is said about the
 * node. The check holds for the stream's whole life: revoking or replacing the token, turning mTLS
 * on in its mesh, or tightening the setting closes every live stream that no longer passes it.
 * `assertOwner` is the last guard, where identities are issued: no private key for a proxy that
 * has not proven it is its Dataplane, whatever the order of events.
 */
export class AuthCallbacks implements Callbacks {
  readonly #streams = new Map<number, OpenStream>();
  /** Node id → the live stream holding it. */
  readonly #holders = new Map<string, number>();
  readonly #options: AuthOptions;
  readonly #unsubscribe: (() => void)[] = [];

  constructor(options: AuthOptions = {}) {
    this.#options = options;
    const { tokens, settings } = options;
    if (tokens) this.#unsubscribe.push(tokens.onChange((changed) => void this.#recheck((subject) => subject.mesh === changed.mesh && subject.name === changed.name)));
    if (settings) this.#unsubscribe.push(settings.onChange('xds.dataplaneTokens', () => void this.#recheck()));
  }

  onStreamOpen({ streamId, peer }: StreamOpenEvent): void {
    this.#streams.set(streamId, { peer, openedAt: new Date() });
  }

  async onStreamRequest({ streamId, node }: StreamRequestEvent): Promise<void> {
    const stream = this.#streams.get(streamId);
    if (!stream) throw new Error(`ADS stream ${streamId} sent a request before it was opened`);
    if (stream.proxyId !== undefined) return; // the node is fixed by the first request
    if (!node.id) {
      throw new StreamError(status.INVALID_ARGUMENT, `stream ${streamId} from ${stream.peer} sent no node id: a proxy is identified by "<mesh>.<name>"`);
    }
    const subject = await this.#checkToken(streamId, node.id, node.metadata?.[DATAPLANE_TOKEN_METADATA_KEY]);
    if (!this.#streams.has(streamId)) return; // closed while its mesh was read
    const holderId = this.#holders.get(node.id);
    const holder = holderId === undefined ? undefined : this.#streams.get(holderId);
    if (holder) {
      throw new StreamError(
        status.ALREADY_EXISTS,
        `proxy ${node.id} is already connected on another stream ` +
          `(opened ${clockTime(holder.openedAt)} from ${holder.peer}); stop the other proxy or give this one its own node id`,
      );
    }
    stream.proxyId = node.id;
    stream.subject = subject;
    stream.token = node.metadata?.[DATAPLANE_TOKEN_METADATA_KEY];
    this.#holders.set(node.id, streamId);
  }

  onStreamClosed({ streamId }: StreamClosedEvent): void {
    const stream = this.#streams.get(streamId);
    this.#streams.delete(streamId);
    if (stream?.proxyId !== undefined && this.#holders.get(stream.proxyId) === streamId) this.#holders.delete(stream.proxyId);
  }

  /** Stops following token and setting changes. */
  close(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  /**
   * Throws unless the proxy may be sent its identity's private key in `mesh` (as the sync reads it
   * now): tokens are not required there, or the proxy's live stream presented its Dataplane's token.
   */
  assertOwner(proxyId: string, mesh: MeshResource): void {
    const requirement = this.#requirement(mesh);
    if (requirement === undefined) return;
    const streamId = this.#holders.get(proxyId);
    const stream = streamId === undefined ? undefined : this.#streams.get(streamId);
    const subject = safeParse(proxyId);
    const check = stream && subject ? this.#options.tokens!.check(subject, stream.token) : undefined;
    if (check?.valid) return;
    throw new Error(`no private key is sent to proxy "${proxyId}": ${check?.reason ?? 'it holds no stream'}; ${requirement}`);
  }

  /** A mesh was written or deleted: its proxies that no longer pass are disconnected. */
  meshChanged(mesh: string): Promise<void> {
    return this.#recheck((subject) => subject.mesh === mesh);
  }

  #mode() {
    return this.#options.tokens === undefined ? 'disabled' : (this.#options.settings?.get('xds.dataplaneTokens') ?? 'disabled');
  }

  #requirement(mesh: MeshResource | undefined): string | undefined {
    return tokenRequirement(this.#mode(), mesh);
  }

  /** Why the Dataplane's proxies must send a token, reading its mesh only when that decides it. */
  async #requirementFor(subject: TokenSubject): Promise<string | undefined> {
    const mode = this.#mode();
    if (mode !== 'mtls-meshes') return tokenRequirement(mode, undefined);
    return this.#requirement(await this.#options.meshOf?.(subject.mesh));
  }

  /** Refuses the node unless it need not or does present its Dataplane's token; returns the Dataplane. */
  async #checkToken(streamId: number, nodeId: string, token: unknown): Promise<TokenSubject | undefined> {
    if (this.#mode() === 'disabled') return undefined;
    let subject: TokenSubject;
    try {
      subject = parseProxyId(nodeId);
    } catch (error) {
      // Only a required token needs the Dataplane named; otherwise the lifecycle refuses the id.
      if (this.#mode() !== 'enabled') return undefined;
      throw new StreamError(status.INVALID_ARGUMENT, `stream ${streamId}: ${(error as Error).message}`, { cause: error });
    }
    const requirement = await this.#requirementFor(subject);
    if (requirement === undefined) return subject;
    const check = this.#options.tokens!.check(subject, token);
    if (!check.valid) throw new StreamError(status.UNAUTHENTICATED, refusal(nodeId, 'cannot connect', check.reason, requirement));
    return subject;
  }

  /** Closes every live stream (of the Dataplanes `affected` picks, when given) that no longer passes. */
  async #recheck(affected?: (subject: TokenSubject) => boolean): Promise<void> {
    if (this.#mode() === 'disabled') return;
    const requirements = new Map<string, Promise<string | undefined>>();
    for (const [streamId, stream] of this.#streams) {
      if (stream.proxyId === undefined) continue;
      const subject = stream.subject ?? safeParse(stream.proxyId);
      if (!subject) continue; // a node id that names no Dataplane is refused by the next callback anyway
      if (affected && !affected(subject)) continue;
      if (!requirements.has(subject.mesh)) {
        // A mesh that cannot be read now leaves its streams as they are: assertOwner still guards its keys.
        const requirement = this.#requirementFor(subject).catch((error: unknown) => {
          console.error(`cannot check the proxies of mesh "${subject.mesh}" for their tokens: ${error instanceof Error ? error.message : String(error)}`);
          return undefined;
        });
        requirements.set(subject.mesh, requirement);
      }
      const requirement = await requirements.get(subject.mesh);
      if (requirement === undefined || this.#streams.get(streamId) !== stream) continue;
      const check = this.#options.tokens!.check(subject, stream.token);
      if (check.valid) continue;
      this.#options.endStream?.(streamId, { code: status.UNAUTHENTICATED, details: refusal(stream.proxyId, 'was disconnected', check.reason, requirement) });
    }
  }
}

function refusal(nodeId: string, what: string, reason: string, requirement: string): string {
  return (
    `proxy "${nodeId}" ${what}: ${reason}. ${requirement}, so a proxy must send its Dataplane's token ` +
    `in node metadata "${DATAPLANE_TOKEN_METADATA_KEY}": use the bootstrap meshdesk gives for it (GET /meshes/<mesh>/dataplanes/<name>/bootstrap, or Connect a proxy)`
  );
}

function safeParse(nodeId: string): TokenSubject | undefined {
  try {
    return parseProxyId(nodeId);
  } catch {
    return undefined;
  }
}

/** `12:00:01`, local time, as a clock on the user's screen shows it. */
function clockTime(date: Date): string {
  return date.toTimeString().slice(0, 8);
}
