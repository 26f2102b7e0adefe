import type { Core } from '../../src/main/core.js';

/**
 * Everything an API request could change: resources, settings, tokens. Equal before and after a
 * request that was refused, or that only reads.
 */
export async function apiObservableState(core: Core) {
  return {
    meshes: await core.manager.list('Mesh'),
    dataplanes: await core.manager.list('Dataplane'),
    settings: core.settings.userValues(),
    tokens: core.xds.dataplaneTokens.list(),
  };
}
