import { fieldPath, indexPath } from '../../resources/field-path.js';
import type { ViolationList } from '../../resources/validation-error.js';
import { checkDecimalAtLeast, checkIntegerGreaterThanZero, checkPercentage, decimalFromIntOrString, listItems, MUST_BE_DEFINED, MUST_NOT_BE_EMPTY } from '../core/conf-checks.js';
import type { PolicySpec, ToItem } from '../core/policy.js';
import type { HashPolicy, LocalityAwareness, LoadBalancer, MeshLoadBalancingStrategyConf } from './api.js';
import { overprovisioningProblem } from './overprovisioning.js';

type Conf = MeshLoadBalancingStrategyConf;

/**
 * Kuma's MeshLoadBalancingStrategy validateTo, less the targetRef kinds the shared spec checks
 * read from the descriptor: what depends on the conf (a gateway's `to` with a loadBalancer, a
 * MeshHTTPRoute's `to`, crossZone on a MeshService section) and the conf itself.
 */
export function validateMeshLoadBalancingStrategy(spec: PolicySpec<Conf>, violations: ViolationList): void {
  const topKind = spec.targetRef?.kind ?? 'Mesh';
  (spec.to ?? []).forEach((item, index) => {
    const path = `spec.to[${index}]`;
    const conf = item.default ?? {};
    const kind = item.targetRef?.kind;
    if (topKind === 'MeshGateway' && conf.loadBalancer && (kind === 'MeshService' || kind === 'MeshMultiZoneService')) {
      violations.add(`${path}.targetRef.kind`, `value '${topKind}' is not supported, only Mesh is allowed if loadBalancer is set`);
    }
    if (kind === 'MeshExternalService' && topKind !== 'Mesh') {
      violations.add(
        `${path}.targetRef.kind`,
        'kind MeshExternalService is only allowed with targetRef.kind: Mesh as it is configured on the Zone Egress and shared by all clients in the mesh',
      );
    }
    validateConf(conf, item, `${path}.default`, violations);
  });
}

function validateConf(conf: Conf, item: ToItem<Conf>, path: string, violations: ViolationList): void {
  const at = (field: string) => fieldPath(path, field);
  if (item.targetRef?.kind === 'MeshHTTPRoute') {
    validateHashPolicies(conf.hashPolicies, at('hashPolicies'), violations);
    const onlyHashPolicies = 'field is not allowed when targetRef.kind is MeshHTTPRoute, only hashPolicies is supported';
    if (conf.loadBalancer) violations.add(at('loadBalancer'), onlyHashPolicies);
    if (conf.localityAwareness) violations.add(at('localityAwareness'), onlyHashPolicies);
    return;
  }
  validateLoadBalancer(conf.loadBalancer, at('loadBalancer'), violations);
  validateLocalityAwareness(conf.localityAwareness, item, at('localityAwareness'), violations);
  validateHashPolicies(conf.hashPolicies, at('hashPolicies'), violations);
  if (conf.hashPolicies && conf.loadBalancer) {
    const twice = 'hashPolicies already specified in the root level';
    if (conf.loadBalancer.ringHash?.hashPolicies) violations.add(`${path}.loadBalancer.ringHash.hashPolicies`, twice);
    if (conf.loadBalancer.maglev?.hashPolicies) violations.add(`${path}.loadBalancer.maglev.hashPolicies`, twice);
  }
}

function validateLocalityAwareness(awareness: LocalityAwareness | undefined, item: ToItem<Conf>, path: string, violations: ViolationList): void {
  if (!awareness) return;
  const affinityTags = awareness.localZone?.affinityTags;
  if (Array.isArray(affinityTags)) {
    const tagsPath = fieldPath(fieldPath(path, 'localZone'), 'affinityTags');
    let weighted = 0;
    affinityTags.forEach((tag, index) => {
      const tagPath = indexPath(tagsPath, index);
      if (!tag.key) violations.add(fieldPath(tagPath, 'key'), MUST_NOT_BE_EMPTY);
      if (tag.weight !== undefined && tag.weight !== null) {
        checkIntegerGreaterThanZero(tag.weight, fieldPath(tagPath, 'weight'), violations);
        weighted++;
      }
    });
    if (weighted > 0 && weighted !== affinityTags.length) violations.add(tagsPath, 'all or none affinity tags should have weight');
  }
  const crossZone = awareness.crossZone;
  if (!crossZone) return;
  const crossPath = fieldPath(path, 'crossZone');
  const ref = item.targetRef;
  if (ref?.kind === 'MeshService' && (ref.sectionName || Object.keys(ref.labels ?? {}).length > 0)) {
    violations.add(crossPath, 'must not be set: MeshService traffic is local');
  }
  listItems(crossZone.failover).forEach((failover, index) => {
    const failoverPath = indexPath(fieldPath(crossPath, 'failover'), index);
    if (failover.from) {
      const fromZones = `${failoverPath}.from.zones`;
      if (listItems(failover.from.zones).length === 0) violations.add(fromZones, MUST_NOT_BE_EMPTY);
      listItems(failover.from.zones).forEach((zone, zoneIndex) => {
        if (zone === '') violations.add(indexPath(fromZones, zoneIndex), MUST_NOT_BE_EMPTY);
      });
    }
    const type = failover.to?.type;
    const zones = listItems(failover.to?.zones);
    if (type === 'Any' || type === 'None') {
      if (zones.length > 0) violations.add(`${failoverPath}.to.zones`, `must be empty when type is ${type}`);
    } else if (type === 'AnyExcept' || type === 'Only') {
      if (zones.length === 0) violations.add(`${failoverPath}.to.zones`, `must not be empty when type is ${type}`);
    } else {
      violations.add(`${failoverPath}.to.type`, 'unrecognized type');
    }
  });
  if (crossZone.failoverThreshold) {
    const path = `${crossPath}.failoverThreshold.percentage`;
    const before = violations.violations.length;
    checkPercentage(crossZone.failoverThreshold.percentage, path, violations, { required: true, allowZero: false });
    const problem = violations.violations.length === before ? overprovisioningProblem(decimalFromIntOrString(crossZone.failoverThreshold.percentage)!) : undefined;
    if (problem !== undefined) violations.add(path, problem);
  }
}

function validateLoadBalancer(loadBalancer: LoadBalancer | undefined, path: string, violations: ViolationList): void {
  if (!loadBalancer) return;
  if (loadBalancer.type === 'RingHash' && loadBalancer.ringHash) {
    validateHashPolicies(loadBalancer.ringHash.hashPolicies, `${path}.ringHash.hashPolicies`, violations);
  } else if (loadBalancer.type === 'Maglev' && loadBalancer.maglev) {
    validateHashPolicies(loadBalancer.maglev.hashPolicies, `${path}.maglev.hashPolicies`, violations);
  } else if (loadBalancer.type === 'LeastRequest' && loadBalancer.leastRequest) {
    checkDecimalAtLeast(loadBalancer.leastRequest.activeRequestBias, 0, `${path}.leastRequest.activeRequestBias`, violations);
  }
}

/** Each hash policy must carry the block its type names. */
function validateHashPolicies(policies: HashPolicy[] | undefined, path: string, violations: ViolationList): void {
  listItems(policies).forEach((policy, index) => {
    const at = (field: string) => fieldPath(indexPath(path, index), field);
    switch (policy.type) {
      case 'Header':
        if (!policy.header) violations.add(at('header'), MUST_BE_DEFINED);
        break;
      case 'Cookie':
        if (!policy.cookie) violations.add(at('cookie'), MUST_BE_DEFINED);
        else if (policy.cookie.path !== undefined && !policy.cookie.path.startsWith('/')) violations.add(`${at('cookie')}.path`, 'must be an absolute path');
        break;
      case 'QueryParameter':
        if (!policy.queryParameter) violations.add(at('queryParameter'), MUST_BE_DEFINED);
        break;
      case 'FilterState':
        if (!policy.filterState) violations.add(at('filterState'), MUST_BE_DEFINED);
        break;
      case 'Connection':
      case 'SourceIP':
        if (!policy.connection) violations.add(at('connection'), MUST_BE_DEFINED);
        break;
    }
  });
}
