// Kuma's deprecation warnings for service-model resources (deprecated.go of MeshService,
// MeshExternalService, MeshMultiZoneService): a PUT still stores the resource and answers them.
import { DISPLAY_NAME_LABEL, NAMESPACE_LABEL, type DestinationType } from '../../shared/meshservice-types.js';
import type { Resource } from '../../shared/resources.js';
import { ZONE_TAG } from '../resources/computed-labels.js';
import { dns1035LabelProblems } from '../resources/dns-1035-label.js';
import { dns1123LabelProblems } from './dns-names.js';
import { sectionsOf } from './sections.js';
import { sniOf } from './rest-shape.js';

const DNS_HOSTNAME_LIMIT = 253;

/** The warnings for a resource about to be written: its name, then each section's SNI. */
export function serviceModelWarnings(resource: Pick<Resource, 'type' | 'meta' | 'spec'>): string[] {
  if (resource.type === 'HostnameGenerator') return [];
  const type = resource.type as DestinationType;
  const name = resource.meta.labels[DISPLAY_NAME_LABEL] ?? resource.meta.name;
  const warnings: string[] = [];
  const nameProblems = dns1035LabelProblems(name);
  if (nameProblems.length > 0) {
    warnings.push(
      `Invalid ${type} resource name: '${name}'. It does not conform to the DNS format (RFC 1035). This is deprecated. Errors: ${nameProblems.join('; ')}`,
    );
  }
  for (const section of sectionsOf(resource)) {
    for (const problem of sniProblems(resource, name, section.name)) {
      warnings.push(`Invalid ${type} SNI (port ${JSON.stringify(section.name)}): ${problem}. This is deprecated.`);
    }
  }
  return warnings;
}

/** Kuma's sni.ValidateKRI: every reason the section's SNI is not made of DNS labels. */
function sniProblems(resource: Pick<Resource, 'type' | 'meta'>, name: string, section: string): string[] {
  const { mesh, labels } = resource.meta;
  if (mesh === '' || name === '' || section === '') return ['mesh, name and sectionName must be non-empty'];
  const zone = labels[ZONE_TAG] ?? '';
  const namespace = labels[NAMESPACE_LABEL] ?? '';
  const fields: [string, string][] = [
    ['mesh', mesh],
    ['name', name],
    ...(zone ? ([['zone', zone], ...(namespace ? [['namespace', namespace]] : [])] as [string, string][]) : []),
  ];
  const problems: string[] = [];
  for (const [field, value] of fields) {
    const each = dns1123LabelProblems(value);
    if (each.length > 0) problems.push(`${field} ${JSON.stringify(value)} does not conform to RFC 1123: ${each.join('; ')}`);
  }
  const sectionProblems = dns1123LabelProblems(section);
  if (sectionProblems.length > 0) problems.push(sectionProblems.join('; '));
  const sni = sniOf(resource, section);
  if (sni.length > DNS_HOSTNAME_LIMIT) {
    problems.push(`computed SNI is ${sni.length} characters which exceeds the DNS hostname limit (${DNS_HOSTNAME_LIMIT})`);
  }
  return problems;
}
