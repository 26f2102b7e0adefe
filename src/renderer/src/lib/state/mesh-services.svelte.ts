import type { ServicesView } from '../../../../shared/services-types.js';
import { client } from '../api/index.js';
import { LiveQuery } from './live-query.svelte.js';
import { changesMesh, expirationMs } from './mesh-analysis.svelte.js';
import type { SettingsState } from './settings.svelte.js';

/** Proxy events that turn an endpoint or a caller online or offline. */
const CONNECTION_EVENTS = new Set(['stream-opened', 'stream-closed', 'registered', 'deregistered']);

/**
 * One mesh's services, kept live: refetched one cache expiration after a write (the MeshContext the
 * core answers from is that old at most) and after a proxy of the mesh connects or leaves.
 */
export function meshServicesQuery(mesh: string, settings: SettingsState): LiveQuery<ServicesView> {
  return new LiveQuery(
    () => client.services(mesh),
    (event) => changesMesh(mesh, event) || (event.topic === 'proxy.event' && event.proxyId.startsWith(`${mesh}.`) && CONNECTION_EVENTS.has(event.event.kind)),
    { keepLastOnError: true, delayMs: expirationMs(settings) + 150 },
  );
}
