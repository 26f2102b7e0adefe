import { CLIENT_TEXT_LIMITS, clipClientText } from '../protocol/client-text.js';

/** A proxy's node id, `mesh.name`, split into the Dataplane it names. */
export interface ProxyId {
  mesh: string;
  name: string;
}

/** A node id that does not name a Dataplane; the message says which id and why. */
export class ProxyIdError extends Error {
  override readonly name = 'ProxyIdError';
}

/**
 * Splits a node id at its first '.', as Kuma's ParseProxyIdFromString does: `default.backend.v1` is
 * Dataplane `backend.v1` in mesh `default`. A mesh whose name has a '.' (Kuma allows it) cannot be
 * named this way, in Kuma as here.
 * Whether the names are well formed is left to the Dataplane's own validation.
 */
export function parseProxyId(nodeId: string): ProxyId {
  if (nodeId.length > CLIENT_TEXT_LIMITS.nodeId) {
    // Mesh and Dataplane names are at most 253 characters each: no Dataplane has a longer id.
    throw new ProxyIdError(`node id "${clipClientText(nodeId, 64)}" is ${nodeId.length} characters long; at most ${CLIENT_TEXT_LIMITS.nodeId}`);
  }
  const dot = nodeId.indexOf('.');
  const expected = 'expected "<mesh>.<name>", e.g. "default.backend-1"';
  if (dot === -1) throw new ProxyIdError(`node id "${nodeId}" has no '.': ${expected}`);
  const mesh = nodeId.slice(0, dot);
  const name = nodeId.slice(dot + 1);
  if (mesh === '') throw new ProxyIdError(`node id "${nodeId}" has an empty mesh before the '.': ${expected}`);
  if (name === '') throw new ProxyIdError(`node id "${nodeId}" has an empty name after the '.': ${expected}`);
  return { mesh, name };
}
