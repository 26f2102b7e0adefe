// The HostnameGenerators a universal zone control plane creates at start (Kuma's
// pkg/defaults/hostname_generator.go): one for the zone's MeshServices, one for its MeshExternalServices.
// None for MeshMultiZoneServices: Kuma makes that one on a global control plane only.
import type { ResourceInput } from '../../shared/resources.js';
import { KUMA_ORIGIN_LABEL } from '../resources/computed-labels.js';

export function defaultHostnameGenerators(): ResourceInput<'HostnameGenerator'>[] {
  const generator = (name: string, template: string, selector: 'meshService' | 'meshExternalService'): ResourceInput<'HostnameGenerator'> => ({
    type: 'HostnameGenerator',
    mesh: '',
    name,
    labels: { [KUMA_ORIGIN_LABEL]: 'zone' },
    spec: { template, selector: { [selector]: { matchLabels: { [KUMA_ORIGIN_LABEL]: 'zone' } } } },
  });
  return [
    generator('local-universal-mesh-service', '{{ .DisplayName }}.svc.mesh.local', 'meshService'),
    generator('local-mesh-external-service', '{{ .DisplayName }}.extsvc.mesh.local', 'meshExternalService'),
  ];
}
