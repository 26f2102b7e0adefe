import type { ToItem } from './policy.js';

/**
 * How one policy type's confs enter the rules, where it differs from the common case (Kuma's
 * per-policy `GetDefault` and `policyMerge` struct tags). A type without hooks contributes each
 * item's `default` and merges them as JSON merge patches.
 */
export interface PolicyConfHooks {
  /** The conf a `to` item contributes (MeshTCPRoute: its first rule; MeshHTTPRoute: its rules and hostnames). */
  toItemConf?(item: ToItem): unknown;
  /**
   * Merges confs in order, later winning; returns one conf per group of the result (Kuma's
   * merge.Confs returns a list: MeshHTTPRoute gives one per hostname), never an empty list.
   */
  mergeConfs?(confs: readonly unknown[]): unknown[];
  /** The keys a conf's parts are known by, for Rule.originByMatches (MeshHTTPRoute: its rules' matches hashes). */
  partKeys?(conf: unknown): string[];
}
