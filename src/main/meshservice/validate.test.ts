import { describe, expect, it } from 'vitest';
import { validateResource } from '../resources/validate.js';
import { ValidationError } from '../resources/validation-error.js';
import { toKumaObject } from '../resources/kuma-json.js';
import { serviceModelWarnings } from './deprecations.js';
import type { Resource, ResourceInput } from '../../shared/resources.js';

function violationsOf(input: unknown): { field: string; message: string }[] {
  try {
    validateResource(input);
  } catch (error) {
    if (error instanceof ValidationError) return error.violations;
    throw error;
  }
  return [];
}

const meshService = (spec: Record<string, unknown>, name = 'redis') => ({ type: 'MeshService', mesh: 'default', name, spec });

function stored(input: ResourceInput): Resource {
  return { type: input.type, meta: { mesh: input.mesh, name: input.name, labels: input.labels, version: 1, creationTime: 't', modificationTime: 't' }, spec: input.spec } as Resource;
}

describe('MeshService validation', () => {
  it('defaults state and appProtocol, drops fields the schema does not name, and never reads a status', () => {
    const read = validateResource({
      ...meshService({ selector: { dataplaneTags: { app: 'redis' } }, ports: [{ port: 6379, targetPort: 'main', protocol: 'tcp' }] }),
      status: { vips: [{ ip: '10.0.0.1' }] },
    });
    expect(read.spec).toEqual({ state: 'Unavailable', selector: { dataplaneTags: { app: 'redis' } }, ports: [{ port: 6379, targetPort: 'main', appProtocol: 'tcp' }] });
    expect(read).not.toHaveProperty('status');
  });

  it('refuses more than one selector, a display name over 63 characters and values of the wrong type', () => {
    expect(violationsOf(meshService({ selector: { dataplaneTags: {}, dataplaneRef: { name: 'a' } } }))).toEqual([
      { field: 'spec.selector', message: 'must specify only one of: dataplaneTags, dataplaneRef, or dataplaneLabels' },
    ]);
    expect(violationsOf(meshService({}, 'a'.repeat(64)))).toEqual([{ field: 'name', message: 'must not be longer than 63 characters' }]);
    expect(violationsOf(meshService({ state: 'Up', ports: [{ port: '80' }] }))).toEqual([
      { field: 'spec.state', message: 'in body should be one of [Available Unavailable]' },
      { field: 'spec.ports[0].port', message: 'in body must be of type integer: "string"' },
    ]);
    expect(violationsOf({ type: 'MeshService', mesh: 'default', name: 'x' })).toEqual([{ field: '', message: 'spec in body is required' }]);
  });

  it('warns, and still accepts, a name that is not a DNS-1035 label and an SNI that is not DNS-1123', () => {
    const read = validateResource(meshService({ ports: [{ port: 8081, targetPort: 80 }] }, 'aa.a'));
    expect(serviceModelWarnings(stored(read))).toEqual([
      expect.stringMatching(/^Invalid MeshService resource name: 'aa\.a'\. It does not conform to the DNS format \(RFC 1035\)\. This is deprecated\. Errors: a DNS-1035 label/),
      'Invalid MeshService SNI (port "8081"): name "aa.a" does not conform to RFC 1123: must not contain dots. This is deprecated.',
    ]);
    expect(serviceModelWarnings(stored(validateResource(meshService({ ports: [{ port: 80, name: 'http' }] }))))).toEqual([]);
  });

  it('serves kri, snis per section and a status with its empty structs', () => {
    const resource = stored(validateResource(meshService({ ports: [{ port: 80, name: 'http' }, { port: 81 }] })));
    resource.meta.labels = { 'kuma.io/zone': 'east' };
    expect(toKumaObject(resource)).toMatchObject({
      kri: 'kri_msvc_default_east__redis_',
      snis: [
        { port: 80, sni: 'sni.msvc.default.east.redis.http' },
        { port: 81, sni: 'sni.msvc.default.east.redis.81' },
      ],
      status: { tls: {}, dataplaneProxies: {} },
    });
  });
});

describe('MeshExternalService, MeshMultiZoneService and HostnameGenerator validation', () => {
  it('checks a MeshExternalService match port and endpoint addresses', () => {
    const mes = (spec: Record<string, unknown>) => ({ type: 'MeshExternalService', mesh: 'default', name: 'ext', spec });
    expect(validateResource(mes({ match: { port: 80 } })).spec).toEqual({ match: { type: 'HostnameGenerator', protocol: 'tcp', port: 80 } });
    expect(violationsOf(mes({ match: { port: 0 }, endpoints: [{ address: 'not an address', port: 1 }, { address: '10.0.0.1', port: 70000 }] }))).toEqual([
      { field: 'spec.match.port', message: 'port must be a valid (1-65535)' },
      { field: 'spec.endpoints[0].address', message: 'address has to be a valid IP or hostname' },
      { field: 'spec.endpoints[1].port', message: 'port must be a valid (1-65535)' },
    ]);
  });

  it('requires a MeshMultiZoneService selector and ports', () => {
    const mzms = (spec: Record<string, unknown>) => ({ type: 'MeshMultiZoneService', mesh: 'default', name: 'multi', spec });
    expect(violationsOf(mzms({ selector: { meshService: { matchLabels: {} } }, ports: [] }))).toEqual([
      { field: 'spec.selector.meshService.matchLabels', message: 'cannot be empty' },
      { field: 'spec.ports', message: 'cannot be empty' },
    ]);
  });

  it('keeps a HostnameGenerator global and renders its template with stub values to check it', () => {
    const generator = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'HostnameGenerator', name: 'gen', ...extra, spec });
    expect(validateResource(generator({ template: '{{ .DisplayName }}.{{ label "team" }}.mesh', selector: { meshService: { matchLabels: {} } } })).mesh).toBe('');
    expect(violationsOf(generator({ template: '{{ .DisplayName }}.mesh', selector: { meshService: {} } }, { mesh: 'default' }))).toEqual([
      { field: 'mesh', message: 'must not be set: a HostnameGenerator does not belong to a mesh' },
    ]);
    expect(violationsOf(generator({ template: '{{ .Nope }}', selector: {} }))).toEqual([
      { field: 'spec.selector', message: 'exact one selector (meshService, meshExternalService) must be defined' },
      { field: 'spec.template', message: `couldn't render template with stub values: template: :1: executing "" at <.Nope>: can't evaluate field Nope` },
    ]);
    expect(violationsOf(generator({ template: '{{ .Name }}_x', selector: { meshService: {} } }))[0]!.message).toMatch(/^template renders to "name_x" which is not a valid DNS name/);
    expect(violationsOf(generator({ template: '{{ printf "x" }}', selector: { meshService: {} } }))[0]!.message).toBe(`couldn't parse template: template: :1: function "printf" not defined`);
  });
});

describe('Mesh meshServices.mode', () => {
  it('reads the four modes by name or number, leaves the default Disabled out as protojson does, and refuses others', () => {
    const mode = (value: unknown) => validateResource({ type: 'Mesh', name: 'm', meshServices: { mode: value } }).spec;
    expect(mode('Everywhere')).toEqual({ meshServices: { mode: 'Everywhere' } });
    expect(mode(2)).toEqual({ meshServices: { mode: 'ReachableBackends' } });
    expect(mode('Exclusive')).toEqual({ meshServices: { mode: 'Exclusive' } });
    expect(mode('Disabled')).toEqual({ meshServices: {} });
    expect(violationsOf({ type: 'Mesh', name: 'm', meshServices: { mode: 'Sometimes' } })).toEqual([
      { field: 'meshServices.mode', message: 'must be one of Disabled, Everywhere, ReachableBackends, Exclusive' },
    ]);
  });
});
