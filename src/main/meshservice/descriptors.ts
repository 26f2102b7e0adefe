// The service model's types as Kuma describes them (zz_generated.resource.go of each type, v2.14.3):
// ws path, short name, scope, and what `GET /_resources` lists.
import type { MeshServiceModelType } from '../../shared/meshservice-types.js';

export interface ServiceModelDescriptor {
  type: MeshServiceModelType;
  path: string;
  shortName: string;
  scope: 'Global' | 'Mesh';
  singularDisplayName: string;
  pluralDisplayName: string;
  /** Kuma's KDS GlobalToZones flag: what a federation's global control plane sends to zones. */
  includeInFederation: boolean;
}

export const SERVICE_MODEL_DESCRIPTORS: readonly ServiceModelDescriptor[] = [
  {
    type: 'MeshService',
    path: 'meshservices',
    shortName: 'msvc',
    scope: 'Mesh',
    singularDisplayName: 'Mesh Service',
    pluralDisplayName: 'Mesh Services',
    includeInFederation: false,
  },
  {
    type: 'MeshExternalService',
    path: 'meshexternalservices',
    shortName: 'extsvc',
    scope: 'Mesh',
    singularDisplayName: 'Mesh External Service',
    pluralDisplayName: 'Mesh External Services',
    includeInFederation: true,
  },
  {
    type: 'MeshMultiZoneService',
    path: 'meshmultizoneservices',
    shortName: 'mzsvc',
    scope: 'Mesh',
    singularDisplayName: 'Mesh Multi Zone Service',
    pluralDisplayName: 'Mesh Multi Zone Services',
    includeInFederation: true,
  },
  {
    type: 'HostnameGenerator',
    path: 'hostnamegenerators',
    shortName: 'hg',
    scope: 'Global',
    singularDisplayName: 'Hostname Generator',
    pluralDisplayName: 'Hostname Generators',
    includeInFederation: true,
  },
];
