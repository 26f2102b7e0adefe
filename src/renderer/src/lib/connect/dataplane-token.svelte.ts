// The Dataplane token every bootstrap carries, which the Connect view shows where meshdesk requires it.
import { enabledBuiltinBackend } from '../../../../shared/mesh-mtls.js';
import type { MeshSpec } from '../../../../shared/resources.js';
import { client } from '../api/index.js';
import type { XdsProtocol } from '../api/client.js';
import type { ProxyKind } from './connect-form.js';
import { errorMessage } from '../format/error-message.js';

/** The setting that says whose proxies must send their Dataplane's token (`'mtls-meshes' | 'enabled' | 'disabled'`). */
export const TOKENS_SETTING = 'xds.dataplaneTokens';

/** The node metadata key of the token (the core's DATAPLANE_TOKEN_METADATA_KEY). */
const TOKEN_METADATA_KEY = 'meshdesk.token';

/**
 * Why a proxy of `mesh` must send its token, as the core decides it (security/token-requirement.ts),
 * or undefined where it need not.
 */
export function requirementOf(setting: unknown, mesh: { name: string; mtls?: unknown } | undefined): string | undefined {
  if (setting === 'enabled') return 'from every proxy';
  // A mesh as the API lists it: validated when it was written.
  if (setting === 'mtls-meshes' && mesh && enabledBuiltinBackend(mesh.mtls as MeshSpec['mtls'])) return `in mesh ${mesh.name}, which has mTLS on`;
  return undefined;
}

/** The token a bootstrap (Envoy's or gRPC's, parsed) carries in its node metadata. */
export function tokenOfBootstrap(bootstrap: { node?: { metadata?: Record<string, unknown> } }): string | undefined {
  const token = bootstrap.node?.metadata?.[TOKEN_METADATA_KEY];
  return typeof token === 'string' ? token : undefined;
}

/** `POST /meshes/{mesh}/dataplanes/{name}/token`'s answer: the only time the token is shown. */
export interface IssuedDataplaneToken {
  mesh: string;
  name: string;
  /** ISO 8601. */
  issuedAt: string;
  token: string;
  /** The node metadata key the proxy sends it in (`meshdesk.token`). */
  metadataKey: string;
}

/** `POST /bootstrap`'s path for the preview; `?xdsProtocol=` for Envoy (gRPC's clients speak SotW only), `?token=` only for a token issued from the view. */
export function previewPath(kind: ProxyKind, xdsProtocol: XdsProtocol, token: string | undefined): string {
  const query = new URLSearchParams({ proxyType: kind, ...(kind === 'envoy' && { xdsProtocol }), ...(token !== undefined && { token }) });
  return `/bootstrap?${query.toString()}`;
}

/** An error's message with any `?token=` of its request path blanked, as the core's log does. */
export function messageWithoutToken(error: unknown): string {
  const message = errorMessage(error);
  return message.replace(/([?&]token=)[^&\s]*/g, '$1…');
}

/**
 * The token issued from the view for the form's mesh and name. It lives in this object only: never
 * persisted, never logged, and dropped as soon as the form names another Dataplane (it would not
 * apply to it).
 */
export class DataplaneTokenState {
  /** What the form names now (`mesh/name`); a token for anything else is dropped. */
  #subject = '';
  #issued = $state.raw<IssuedDataplaneToken>();
  issuing = $state(false);
  /** Why issuing failed (the API's message). */
  problem = $state<string>();

  /** The token issued for the Dataplane the form names now, if any. */
  get issued(): IssuedDataplaneToken | undefined {
    return this.#issued;
  }

  /** The form names `mesh/name`: a token issued for another Dataplane is dropped, and so is its problem. */
  follow(mesh: string, name: string): void {
    const subject = subjectOf(mesh, name);
    if (subject === this.#subject) return;
    this.#subject = subject;
    this.#issued = undefined;
    this.problem = undefined;
  }

  /** Issues a new token, replacing the Dataplane's previous one (a proxy using that is disconnected). */
  async issue(mesh: string, name: string): Promise<void> {
    const subject = subjectOf(mesh, name);
    this.issuing = true;
    this.problem = undefined;
    try {
      const path = `/meshes/${encodeURIComponent(mesh)}/dataplanes/${encodeURIComponent(name)}/token`;
      const issued = JSON.parse(await client.request('POST', path)) as IssuedDataplaneToken;
      // The form moved on meanwhile: the token is for a Dataplane it no longer names.
      if (subject === this.#subject) this.#issued = issued;
    } catch (error) {
      if (subject === this.#subject) this.problem = messageWithoutToken(error);
    } finally {
      this.issuing = false;
    }
  }
}

function subjectOf(mesh: string, name: string): string {
  return `${mesh}/${name}`;
}
