import type { MeshAnalysis } from '../../../../shared/analysis-types.js';
import { parseDuration } from '../../../../shared/duration.js';
import type { CoreEvent } from '../../../../shared/events.js';
import { client } from '../api/index.js';
import { LiveQuery } from './live-query.svelte.js';
import type { SettingsState } from './settings.svelte.js';

/** Until the settings have loaded: the default cache expiration. */
const DEFAULT_EXPIRATION_MS = 1000;

/**
 * One mesh's analysis, kept live. The core analyzes the mesh as its proxies are generated from it,
 * a view kept one cache expiration: a write shows in it that long after, so that is when to ask again.
 */
export function meshAnalysisQuery(mesh: string, settings: SettingsState): LiveQuery<MeshAnalysis> {
  return new LiveQuery(() => client.analysis(mesh), (event) => changesMesh(mesh, event), { keepLastOnError: true, delayMs: expirationMs(settings) + 150 });
}

/** A write to the mesh or its resources, or a tick that generated one of its proxies: what a view of the MeshContext refetches on. */
export function changesMesh(mesh: string, event: CoreEvent): boolean {
  return (
    (event.topic === 'resource.changed' && (event.key.mesh === mesh || (event.key.type === 'Mesh' && event.key.name === mesh))) ||
    (event.topic === 'proxy.event' && event.proxyId.startsWith(`${mesh}.`) && event.event.kind === 'tick' && event.event.result !== 'skip')
  );
}

export function expirationMs(settings: SettingsState): number {
  const value = settings.all.find((setting) => setting.name === 'store.cache.expirationTime')?.value;
  try {
    return typeof value === 'string' ? parseDuration(value) : DEFAULT_EXPIRATION_MS;
  } catch {
    return DEFAULT_EXPIRATION_MS;
  }
}
