import type { PolicyType } from '../../../shared/policy-types.js';
import type { DataplaneResource } from '../../../shared/resources.js';
import type { ContextReads } from '../../xds/context/context-view.js';
import type { MeshContext } from '../../xds/context/mesh-context.js';
import type { ProxyKind } from '../../../shared/proxy-kind.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import type { ViolationList } from '../../resources/validation-error.js';
import type { EnvoyResources } from './envoy-resources.js';
import type { SpecShape } from './spec-shape.js';
import type { PolicySpec } from './policy.js';
import type { ProxyRules } from './rules.js';
import type { TargetRefKind } from './target-ref.js';

/**
 * Where a policy type may be used (Kuma's type descriptor and validator): which kinds each
 * targetRef position accepts. The shared spec validator and the rules engine read it.
 */
export interface PolicyDescriptor {
  type: PolicyType;
  /** Kuma's plugin order: plugins run in ascending order (MeshHTTPRoute 100 … MeshCircuitBreaker 1300). */
  order: number;
  /** Kuma's API names: `/meshes/{mesh}/<path>`, kumactl's `get <path>`, `_resources`' names. */
  path: string;
  singularDisplayName: string;
  pluralDisplayName: string;
  shortName: string;
  topLevelKinds: readonly TargetRefKind[];
  /** Undefined: the policy has no `to` section. */
  toKinds?: readonly TargetRefKind[];
  fromKinds?: readonly TargetRefKind[];
  /** The policy has inbound `rules`. */
  hasRules: boolean;
  /** Kuma's isFromAsRules: `from` items are read as inbound rules without match. */
  fromAsRules: boolean;
  /**
   * The plugin reads every inbound rule with its own conf and origin, the rules without match not
   * merged into one (MeshTrafficPermission: Kuma's RBAC configurer names each policy's matchers).
   */
  inboundRulesApart?: boolean;
  /** How Kuma's validator of this type checks the sections beyond their kinds; absent: no such checks. */
  sections?: SectionRules;
}

/**
 * The section checks Kuma's validators make differently per policy type (validate-policy.ts reads
 * them): which presence rule, which message for mixing `rules` with `to`/`from`, which `to` kinds
 * under a MeshGateway or MeshHTTPRoute top-level targetRef, and the gateway-scope rules.
 */
export interface SectionRules {
  /** "at least one of 'from', 'to' or 'rules' has to be defined", or MeshTrafficPermission's "'from' or 'rules'". */
  requireOneOf?: 'from, to or rules' | 'from or rules';
  /** "fields 'to' and 'from' must be empty when 'rules' is defined", or "field 'from' must be empty …". */
  rulesExclude?: 'to and from' | 'from';
  /** The `to` kinds when the top-level targetRef is of a given kind, instead of `toKinds`. */
  toKindsByTopLevel?: Partial<Record<TargetRefKind, readonly TargetRefKind[]>>;
  /** `from` "must not be defined" under these top-level kinds. */
  noFromUnder?: readonly TargetRefKind[];
  /**
   * MeshFaultInjection, MeshRateLimit: `from` must not be defined when the top-level scope includes
   * gateways, and `to` only then; `rules` too when `noRulesWithGateways` (MeshRateLimit).
   */
  gatewayScope?: { noRulesWithGateways: boolean };
  /** `rules[].matches`: Kuma's ValidateMatch, plus (`typed`) the presence and spiffeID type checks. */
  ruleMatches?: 'match' | 'typed';
}

/** A field of a policy that a proxy cannot apply, reported on the proxy instead of dropped. */
export interface UnappliedField {
  policy: { type: PolicyType; name: string };
  /** The field in the policy (`spec.to[0].default.http.maxStreamDuration`) or the conf field. */
  field: string;
  reason: string;
}

export interface PluginInput<Conf> {
  proxy: Proxy;
  /** The mesh's context as the plugin declared it reads it (`contextReads`): any other field throws. */
  context: MeshContext;
  /** This plugin's type's rules for this proxy, as Kuma computes them. */
  rules: ProxyRules<Conf>;
  resources: EnvoyResources;
  /**
   * This plugin type's rules for another Dataplane of the mesh. Proxyless gRPC has no sidecar at
   * the destination to apply inbound policies (MeshFaultInjection), so the calling client applies
   * the destination's inbound rules that name it.
   */
  rulesOf(dataplane: DataplaneResource): ProxyRules<Conf>;
  /** Says that a field cannot be applied on this proxy (gRPC implements only part of Envoy's API). */
  unapplied(field: UnappliedField): void;
}

/**
 * One targetRef policy type, as Kuma's `pkg/plugins/policies/<name>/` holds it: its descriptor,
 * the checks of its own fields (the shared ones — targetRef kinds, to/from/rules presence — run
 * first from the descriptor), and what it does to an Envoy proxy's and a gRPC proxy's config.
 */
export interface PolicyPlugin<Conf = unknown> {
  readonly descriptor: PolicyDescriptor;
  /**
   * The JSON types of the policy's own fields (its confs, route rules), as Kuma's schema for the
   * type gives them (its `rest.yaml`): checked before `validate`, which may then trust them
   * (spec-shape.ts). Every plugin has one: a new type cannot forget it.
   */
  readonly specShape: SpecShape;
  /** Checks the policy's own fields (`default` confs, route rules) with Kuma's paths and messages. */
  validate(spec: PolicySpec<Conf>, violations: ViolationList): void;
  /**
   * What of the MeshContext `applyEnvoy` and `applyGrpc` read besides their rules: each sees the
   * context through a view that refuses anything else (context-view.ts), and a tick in which these
   * parts, the rules and the resources a run read are unchanged replays the run (plugin-replay.ts).
   */
  readonly contextReads: { readonly [K in ProxyKind]: ContextReads };
  /** Changes an Envoy proxy's resources as its rules say (Kuma's plugin `Apply`). */
  applyEnvoy(input: PluginInput<Conf>): void;
  /** The same for proxyless gRPC, in the form gRPC implements it; fields it cannot apply go to `unapplied`. */
  applyGrpc(input: PluginInput<Conf>): void;
}
