import type { PolicyPlugin } from './core/plugin.js';
import { meshHTTPRoutePlugin } from './meshhttproute/plugin.js';
import { meshTCPRoutePlugin } from './meshtcproute/plugin.js';

/**
 * Every policy plugin, the one list: the API, validation, the rules engine and the generator all
 * read it. Sorted by Kuma's plugin order, which is the order they change a proxy's config in.
 */
export const POLICY_PLUGINS: readonly PolicyPlugin[] = ([meshHTTPRoutePlugin, meshTCPRoutePlugin] as PolicyPlugin[]).sort(
  (a, b) => a.descriptor.order - b.descriptor.order,
);
