// The checks Kuma makes on every targetRef policy (pkg/core/resources/apis/mesh/validators.go
// ValidateTargetRef and ValidateMatch, and the section checks each policy's validator.go repeats),
// driven by the type's descriptor; then the type's own conf checks, by its plugin.
import type { Tags } from '../../../shared/resources.js';
import { fieldPath, indexPath, joinPath } from '../../resources/field-path.js';
import { checkTags } from '../../resources/kuma-rules.js';
import { ViolationList } from '../../resources/validation-error.js';
import { POLICY_PLUGINS } from '../registry.js';
import { checkInputBounds } from './input-bounds.js';
import type { PolicyDescriptor } from './plugin.js';
import type { PolicySpec } from './policy.js';
import { readObject, readString } from './json-readers.js';
import { checkMatch, readMatch } from './rule-match.js';
import { readShape, typeMessage } from './spec-shape.js';
import type { TargetRef, TargetRefKind } from './target-ref.js';

const SPEC = 'spec';
/** Kuma's NameCharacterSet, for names of the kinds that take one. */
const NAME_CHARACTERS = /^[0-9a-z._-]*$/;
const PROXY_TYPES = ['Sidecar', 'Gateway'];

/**
 * Reads a policy's spec (the flat resource's spec fields), reporting violations at Kuma's paths
 * (`spec.to[0].targetRef.kind`), and returns it with the fields Kuma's types do not have dropped.
 * Undefined when the spec's shape is wrong (then only that is reported, as Kuma's schema check does).
 */
export function checkPolicySpec(descriptor: PolicyDescriptor, value: unknown, violations: ViolationList): PolicySpec | undefined {
  const before = violations.violations.length;
  const read = readSpec(descriptor, value, violations);
  const plugin = POLICY_PLUGINS.find(({ descriptor: { type } }) => type === descriptor.type);
  // The rest of the schema: the confs' and route rules' JSON types, before any validator reads them.
  const unservable = new ViolationList();
  const spec = read && plugin ? (readShape(read, plugin.specShape, SPEC, violations, unservable) as PolicySpec | undefined) : read;
  if (spec === undefined || violations.violations.length > before) {
    addUnservable(unservable, violations);
    return undefined;
  }
  if (!checkInputBounds(descriptor, spec, violations)) return undefined;
  const refused = checkSections(descriptor, spec, violations);
  // As Kuma's validators, a section refused whole (`spec.to: must not be defined`) has its confs left unchecked.
  const checkable = { ...spec, ...Object.fromEntries([...refused].map((section) => [section, undefined])) };
  plugin?.validate(checkable, violations);
  addUnservable(unservable, violations);
  return violations.violations.length === before ? spec : undefined;
}

/**
 * Values a proxy could not be sent (served-value.ts), after Kuma's own checks: a field Kuma's
 * validator already refused keeps Kuma's message alone.
 */
function addUnservable(unservable: ViolationList, violations: ViolationList): void {
  const reported = new Set(violations.violations.map(({ field }) => fieldName(field)));
  for (const { field, message } of unservable.violations) if (!reported.has(fieldName(field))) violations.add(field, message);
}

/**
 * A field without its list indexes, for comparing paths: Kuma's validators place some indexes
 * elsewhere (`http.delay[1].value` for `http[1].delay.value`) or name a conf's fields under
 * `default.conf.` (MeshRetry's).
 */
function fieldName(field: string): string {
  return field.replace(/\[\d+\]/g, '').replaceAll('.default.conf.', '.default.');
}

// ---- Kuma's section checks --------------------------------------------------------------------------------

type Section = 'to' | 'from' | 'rules';

/** Kuma's section checks; answers the sections refused whole. */
function checkSections(descriptor: PolicyDescriptor, spec: PolicySpec, violations: ViolationList): Set<Section> {
  const rules = descriptor.sections ?? {};
  const to = spec.to ?? [];
  const from = spec.from ?? [];
  const inboundRules = spec.rules ?? [];
  const top: TargetRef = spec.targetRef ?? { kind: 'Mesh' };
  // Kuma's inbound.AffectsInbounds: only then may the top-level targetRef name one inbound.
  const inboundPolicy = (descriptor.fromKinds !== undefined || descriptor.hasRules) && (from.length > 0 || inboundRules.length > 0);
  if (spec.targetRef) {
    checkTargetRef(spec.targetRef, fieldPath(SPEC, 'targetRef'), violations, {
      kinds: descriptor.topLevelKinds,
      gatewayListenerTagsAllowed: true,
      inboundPolicy,
    });
  }
  const excluded = rules.rulesExclude === 'from' ? from.length > 0 : to.length > 0 || from.length > 0;
  if (rules.rulesExclude && inboundRules.length > 0 && excluded) {
    violations.add(
      SPEC,
      rules.rulesExclude === 'from' ? "field 'from' must be empty when 'rules' is defined" : "fields 'to' and 'from' must be empty when 'rules' is defined",
    );
  }
  if (rules.requireOneOf && inboundRules.length === 0 && from.length === 0 && (rules.requireOneOf === 'from or rules' || to.length === 0)) {
    violations.add(SPEC, rules.requireOneOf === 'from or rules' ? "at least one of 'from' or 'rules' has to be defined" : "at least one of 'from', 'to' or 'rules' has to be defined");
  }
  const gateways = includesGateways(top);
  const refused = new Set<Section>();
  if (!checkRules(descriptor, inboundRules, gateways || top.kind === 'MeshHTTPRoute', violations)) refused.add('rules');
  if (!checkFrom(descriptor, from, top, gateways, violations)) refused.add('from');
  if (!checkTo(descriptor, to, top, gateways, violations)) refused.add('to');
  return refused;
}

/** False when the section is refused whole. */
function checkRules(descriptor: PolicyDescriptor, rules: NonNullable<PolicySpec['rules']>, gatewayScope: boolean, violations: ViolationList): boolean {
  const path = fieldPath(SPEC, 'rules');
  if (descriptor.sections?.gatewayScope?.noRulesWithGateways && gatewayScope && rules.length > 0) {
    violations.add(path, 'must not be defined');
    return false;
  }
  const style = descriptor.sections?.ruleMatches;
  if (style === undefined) return true;
  rules.forEach((rule, index) => {
    (rule.matches ?? []).forEach((match, matchIndex) => {
      const matchPath = indexPath(fieldPath(indexPath(path, index), 'matches'), matchIndex);
      checkMatch(match, matchPath, violations);
      if (style !== 'typed') return;
      if (match.spiffeID === undefined && match.sni === undefined) {
        violations.add(matchPath, "must specify at least one of 'spiffeID' or 'sni'");
      } else if (match.spiffeID !== undefined) {
        const type = match.spiffeID.type as string | undefined;
        const typePath = joinPath(matchPath, 'spiffeID.type');
        if (!type) violations.add(typePath, 'must be set');
        else if (type !== 'Exact' && type !== 'Prefix') violations.add(typePath, `unrecognized type ${JSON.stringify(type)}, supported values are: Exact, Prefix`);
      }
    });
  });
  return true;
}

/** False when the section is refused whole. */
function checkFrom(descriptor: PolicyDescriptor, from: NonNullable<PolicySpec['from']>, top: TargetRef, gateways: boolean, violations: ViolationList): boolean {
  const path = fieldPath(SPEC, 'from');
  if (from.length > 0 && descriptor.sections?.noFromUnder?.includes(top.kind)) {
    violations.add(path, 'must not be defined');
    return false;
  }
  if (from.length > 0 && descriptor.sections?.gatewayScope && gateways) {
    violations.add(path, 'must not be defined when the scope includes a Gateway, select only proxyType Sidecar or select only gateways and use spec.to');
    return false;
  }
  from.forEach((item, index) =>
    checkTargetRef(item.targetRef, fieldPath(indexPath(path, index), 'targetRef'), violations, { kinds: descriptor.fromKinds ?? [] }),
  );
  return true;
}

/** False when the section is refused whole. */
function checkTo(descriptor: PolicyDescriptor, to: NonNullable<PolicySpec['to']>, top: TargetRef, gateways: boolean, violations: ViolationList): boolean {
  const path = fieldPath(SPEC, 'to');
  if (to.length > 0 && descriptor.sections?.gatewayScope && !gateways) {
    violations.add(path, 'must not be defined');
    return false;
  }
  const byTopLevel = descriptor.sections?.toKindsByTopLevel;
  // Own keys only: a kind named `__proto__` or `constructor` is no kind of the table.
  const kinds = (byTopLevel && Object.hasOwn(byTopLevel, top.kind) ? byTopLevel[top.kind as keyof typeof byTopLevel] : undefined) ?? descriptor.toKinds ?? [];
  to.forEach((item, index) => checkTargetRef(item.targetRef, fieldPath(indexPath(path, index), 'targetRef'), violations, { kinds }));
  return true;
}

/** Kuma's common_api.IncludesGateways: a top-level targetRef whose scope may select gateway proxies. */
export function includesGateways(ref: TargetRef): boolean {
  const gatewayInProxyTypes = (ref.proxyTypes ?? []).length === 0 || ref.proxyTypes!.includes('Gateway');
  return ref.kind === 'MeshGateway' || ref.kind === 'MeshHTTPRoute' || ((ref.kind === 'Mesh' || ref.kind === 'MeshSubset') && gatewayInProxyTypes);
}

// ---- ValidateTargetRef and ValidateMatch ------------------------------------------------------------------

interface TargetRefOptions {
  kinds: readonly TargetRefKind[];
  gatewayListenerTagsAllowed?: boolean;
  inboundPolicy?: boolean;
}

/** Kuma's ValidateTargetRef: the kind must be one the position supports, then the fields that kind takes. */
export function checkTargetRef(ref: TargetRef, path: string, violations: ViolationList, options: TargetRefOptions): void {
  const at = (field: string) => joinPath(path, field);
  if (!ref.kind) {
    violations.add(at('kind'), 'must be defined');
    return;
  }
  if (!options.kinds.includes(ref.kind)) {
    violations.add(at('kind'), `value '${ref.kind}' is not supported`);
    return;
  }
  const { kind } = ref;
  const disallow = (...fields: ('name' | 'mesh' | 'tags' | 'labels' | 'namespace' | 'sectionName' | 'proxyTypes')[]) => {
    for (const field of fields) if (isSet(ref[field])) violations.add(at(field), `must not be set with kind ${kind}`);
  };
  const labelsOrName = (message = 'either labels or name and namespace must be specified') => {
    if (isSet(ref.labels) && (isSet(ref.name) || isSet(ref.namespace))) violations.add(at('labels'), message);
  };
  const nameOrLabelsRequired = () => {
    if (!isSet(ref.labels) && !isSet(ref.name)) violations.add(path, `name or labels must be set when kind is ${kind}`);
  };
  const checkName = () => {
    if (!NAME_CHARACTERS.test(ref.name ?? '')) violations.add(at('name'), "invalid characters: must consist of lower case alphanumeric characters, '-', '.' and '_'.");
  };
  const checkProxyTypes = () => {
    if (ref.proxyTypes !== undefined && ref.proxyTypes.length === 0) violations.add(at('proxyTypes'), 'must be undefined or have at least one element');
  };
  switch (kind) {
    case 'Mesh':
      if (isSet(ref.name)) violations.add(at('name'), `using name with kind ${kind} is not yet supported`);
      disallow('mesh', 'tags', 'labels', 'namespace', 'sectionName');
      checkProxyTypes();
      break;
    case 'Dataplane':
      disallow('tags', 'mesh', 'proxyTypes');
      labelsOrName();
      if (!options.inboundPolicy && isSet(ref.sectionName)) violations.add(at('sectionName'), 'can only be used with inbound policies');
      break;
    case 'MeshSubset':
      disallow('name', 'mesh');
      checkTags(ref.tags, at('tags'), violations);
      disallow('labels', 'namespace', 'sectionName');
      checkProxyTypes();
      break;
    case 'MeshService':
      checkName();
      disallow('mesh', 'tags', 'proxyTypes');
      nameOrLabelsRequired();
      labelsOrName();
      break;
    case 'MeshHTTPRoute':
      checkName();
      disallow('mesh', 'tags', 'proxyTypes', 'sectionName');
      nameOrLabelsRequired();
      labelsOrName();
      break;
    case 'MeshServiceSubset':
    case 'MeshGateway':
      if (!isSet(ref.name)) violations.add(at('name'), `must be set when kind is ${kind}`);
      checkName();
      disallow('mesh', 'proxyTypes');
      checkTags(ref.tags, at('tags'), violations, { selector: true });
      if (kind === 'MeshGateway' && isSet(ref.tags) && !options.gatewayListenerTagsAllowed) disallow('tags');
      disallow('labels', 'namespace', 'sectionName');
      break;
    case 'MeshExternalService':
      checkName();
      disallow('mesh', 'tags', 'proxyTypes');
      nameOrLabelsRequired();
      labelsOrName('either labels or name must be specified');
      disallow('sectionName');
      break;
    case 'MeshMultiZoneService':
      break;
  }
}

function isSet(value: string | Tags | readonly string[] | undefined): boolean {
  if (value === undefined) return false;
  if (typeof value === 'string') return value !== '';
  return Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0;
}

// ---- Reading the shape ------------------------------------------------------------------------------------

/**
 * The spec as Kuma's OpenAPI schema check and Go's JSON decoding read it: wrong JSON types are
 * reported (`spec.to in body must be of type array: "string"`), `null` is absent, and fields the
 * Go types do not have are dropped. A section the type does not have (MeshRetry's `from`) is such
 * a field. Inside items, everything but targetRef and matches is the type's own and kept as given.
 */
function readSpec(descriptor: PolicyDescriptor, value: unknown, violations: ViolationList): PolicySpec | undefined {
  const spec = readObject(value, SPEC, violations);
  if (spec === undefined) return undefined;
  const result: PolicySpec = {};
  const targetRef = readTargetRef(spec.targetRef, fieldPath(SPEC, 'targetRef'), violations);
  if (targetRef) result.targetRef = targetRef;
  if (descriptor.toKinds !== undefined) {
    const to = readItems(spec.to, fieldPath(SPEC, 'to'), violations, (item, path) => ({
      ...item,
      targetRef: readTargetRef(item.targetRef, fieldPath(path, 'targetRef'), violations) ?? ({} as TargetRef),
    }));
    if (to) result.to = to;
  }
  if (descriptor.fromKinds !== undefined) {
    const from = readItems(spec.from, fieldPath(SPEC, 'from'), violations, (item, path) => ({
      ...item,
      targetRef: readTargetRef(item.targetRef, fieldPath(path, 'targetRef'), violations) ?? ({} as TargetRef),
      default: item.default,
    }));
    if (from) result.from = from;
  }
  if (descriptor.hasRules) {
    const rules = readItems(spec.rules, fieldPath(SPEC, 'rules'), violations, (item, path) => {
      const matches = readItems(item.matches, fieldPath(path, 'matches'), violations, (match, matchPath) => readMatch(match, matchPath, violations));
      const { matches: _given, ...rest } = item;
      return { ...rest, ...(matches && { matches }), default: item.default };
    });
    if (rules) result.rules = rules;
  }
  return result;
}

function readTargetRef(value: unknown, path: string, violations: ViolationList): TargetRef | undefined {
  const ref = readObject(value, path, violations);
  if (ref === undefined) return undefined;
  const result: Record<string, unknown> = {};
  for (const field of ['kind', 'name', 'namespace', 'mesh', 'sectionName'] as const) {
    const text = readString(ref[field], fieldPath(path, field), violations);
    if (text !== undefined) result[field] = text;
  }
  for (const field of ['tags', 'labels'] as const) {
    const map = readStringMap(ref[field], fieldPath(path, field), violations);
    if (map !== undefined) result[field] = map;
  }
  const proxyTypes = readItems(ref.proxyTypes, fieldPath(path, 'proxyTypes'), violations, undefined, (item, itemPath) => {
    if (typeof item === 'string' && PROXY_TYPES.includes(item)) return item;
    violations.add(itemPath, `in body should be one of [${PROXY_TYPES.join(' ')}]`);
    return undefined;
  });
  if (proxyTypes) result.proxyTypes = proxyTypes;
  return result as unknown as TargetRef;
}

type JsonRecord = Record<string, unknown>;

/** A list of objects (each read by `readObjectItem`) or of other values (each read by `readOther`). */
function readItems<T>(
  value: unknown,
  path: string,
  violations: ViolationList,
  readObjectItem?: (item: JsonRecord, path: string) => T,
  readOther?: (item: unknown, path: string) => T | undefined,
): T[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    violations.add(path, typeMessage('array', value));
    return undefined;
  }
  const items: T[] = [];
  value.forEach((item: unknown, index) => {
    const itemPath = indexPath(path, index);
    if (readObjectItem) {
      const object = readObject(item, itemPath, violations);
      if (object !== undefined) items.push(readObjectItem(object, itemPath));
    } else {
      const read = readOther?.(item, itemPath);
      if (read !== undefined) items.push(read);
    }
  });
  return items;
}

function readStringMap(value: unknown, path: string, violations: ViolationList): Record<string, string> | undefined {
  const object = readObject(value, path, violations);
  if (object === undefined) return undefined;
  const entries: [string, string][] = [];
  for (const [key, entry] of Object.entries(object)) {
    const text = readString(entry, fieldPath(path, key), violations);
    if (text !== undefined) entries.push([key, text]);
  }
  return Object.fromEntries(entries);
}
