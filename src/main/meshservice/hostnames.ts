// Hostnames from HostnameGenerators (Kuma's hostnamegenerator/hostname/generator.go EvaluateTemplate
// and each type's GenerateHostname): a generator names the resources its selector picks, by template.
import {
  DISPLAY_NAME_LABEL,
  NAMESPACE_LABEL,
  type DestinationType,
  type HostnameGeneratorSpec,
} from '../../shared/meshservice-types.js';
import type { Resource } from '../../shared/resources.js';
import { ZONE_TAG } from '../resources/computed-labels.js';
import { dns1123SubdomainProblems } from './dns-names.js';
import { matchesLabels } from './match.js';
import { parseTemplate, renderTemplate, TemplateError } from './template.js';

const SELECTOR_OF: Record<DestinationType, keyof NonNullable<HostnameGeneratorSpec['selector']>> = {
  MeshService: 'meshService',
  MeshExternalService: 'meshExternalService',
  MeshMultiZoneService: 'meshMultiZoneService',
};

/** Whether the generator's selector for the resource's kind picks it (by labels). */
export function generatorSelects(generator: Resource<'HostnameGenerator'>, resource: Pick<Resource, 'type' | 'meta'>): boolean {
  const selector = generator.spec.selector?.[SELECTOR_OF[resource.type as DestinationType]];
  return selector !== undefined && matchesLabels(selector.matchLabels, resource.meta.labels);
}

/**
 * The hostname the generator gives the resource, '' when its selector does not pick it. Throws a
 * TemplateError (Kuma's TemplateError condition) when the template cannot render, or, with
 * `validateDns`, renders to something that is not a DNS name.
 */
export function generateHostname(
  localZone: string,
  generator: Resource<'HostnameGenerator'>,
  resource: Pick<Resource, 'type' | 'meta'>,
  { validateDns }: { validateDns: boolean },
): string {
  if (!generatorSelects(generator, resource)) return '';
  const { meta } = resource;
  let template;
  try {
    template = parseTemplate(generator.spec.template ?? '');
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    throw new TemplateError(`failed compiling gotemplate error=${JSON.stringify(error.message)}`);
  }
  let generated: string;
  try {
    generated = renderTemplate(template, {
      data: {
        Name: meta.name,
        DisplayName: meta.labels[DISPLAY_NAME_LABEL] ?? meta.name,
        Namespace: meta.labels[NAMESPACE_LABEL] ?? '',
        Mesh: meta.mesh,
        Zone: meta.labels[ZONE_TAG] || localZone,
      },
      label: (key) => {
        const value = meta.labels[key];
        if (value === undefined) throw new TemplateError(`template: :1: executing "" at <label ${JSON.stringify(key)}>: error calling label: label ${key} not found`);
        return value;
      },
    });
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    throw new TemplateError(`pre evaluation of template with parameters failed with error=${JSON.stringify(error.message)}`);
  }
  if (validateDns) {
    const problems = dns1123SubdomainProblems(generated);
    if (problems.length > 0) throw new TemplateError(`generated hostname ${JSON.stringify(generated)} is not a valid DNS name: ${problems.join(', ')}`);
  }
  return generated;
}
