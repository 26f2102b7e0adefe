import type { PolicyType } from '../../shared/policy-types.js';
import type { PolicyConfHooks } from './core/policy-conf-hooks.js';
import { meshHTTPRouteConfHooks } from './meshhttproute/rules-conf.js';
import { meshTCPRouteConfHooks } from './meshtcproute/rules-conf.js';

/** The policy types whose confs enter the rules other than as `default` merged by JSON merge patch. */
export const POLICY_CONF_HOOKS: { readonly [T in PolicyType]?: PolicyConfHooks } = {
  MeshHTTPRoute: meshHTTPRouteConfHooks,
  MeshTCPRoute: meshTCPRouteConfHooks,
};
