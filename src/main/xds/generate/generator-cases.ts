// Reads a generator golden case's input: a mesh of Dataplanes in Kuma's universal form and the
// one whose proxy gets the configuration.
import fs from 'node:fs';
import { parse } from 'yaml';
import type { DataplaneResource, DataplaneSpec, MeshResource, MeshSpec } from '../../../shared/resources.js';
import { meshMtls } from '../../mtls/mesh-mtls.js';
import type { ProxyIdentity } from '../../mtls/proxy-identities.js';
import { buildMeshContext } from '../context/build-mesh-context.js';
import type { MeshContext } from '../context/mesh-context.js';
import type { ProxyKind } from '../../../shared/proxy-kind.js';
import type { Proxy } from './proxy.js';

interface GeneratorCaseInput {
  /** Says what the case shows; becomes the test name. */
  description: string;
  mesh: string;
  /** Name of the Dataplane whose configuration is generated. */
  proxy: string;
  kind?: ProxyKind;
  /** What the proxy advertises in its node metadata (kuma-dp's `features`). */
  features?: string[];
  dataplanes: ({ name: string; labels?: Record<string, string> } & DataplaneSpec)[];
  /** The Mesh's spec (its `mtls`), empty when absent. */
  meshSpec?: MeshSpec;
}

export interface GeneratorCase {
  description: string;
  context: MeshContext;
  proxy: Proxy;
}

const TIME = '2024-01-01T00:00:00.000Z';

export function loadGeneratorCase(inputPath: string): GeneratorCase {
  const input = parse(fs.readFileSync(inputPath, 'utf8')) as GeneratorCaseInput;
  const mesh: MeshResource = { type: 'Mesh', meta: meta('', input.mesh), spec: input.meshSpec ?? {} };
  const dataplanes = input.dataplanes.map(
    ({ name, labels, ...spec }): DataplaneResource => ({ type: 'Dataplane', meta: meta(input.mesh, name, labels), spec }),
  );
  const dataplane = dataplanes.find((candidate) => candidate.meta.name === input.proxy);
  if (dataplane === undefined) throw new Error(`${inputPath}: no Dataplane named "${input.proxy}"`);
  return {
    description: input.description,
    context: buildMeshContext(mesh, dataplanes),
    proxy: {
      id: `${input.mesh}.${input.proxy}`,
      dataplane,
      kind: input.kind ?? 'envoy',
      features: new Set(input.features ?? []),
      ...(meshMtls(mesh) && { identity: fixedIdentity(input.mesh) }),
    },
  };
}

/** An identity with placeholder PEMs (Kuma's secret goldens use `CERT`, `KEY` and `CA` too): goldens must not hold keys. */
function fixedIdentity(mesh: string): ProxyIdentity {
  return {
    mesh,
    certChain: 'CERT',
    key: 'KEY',
    caCert: 'CA',
    serial: '01',
    uris: [],
    notBefore: TIME,
    notAfter: TIME,
    rotateAt: TIME,
  };
}

function meta(mesh: string, name: string, labels: Record<string, string> = {}): MeshResource['meta'] {
  return { mesh, name, version: 1, creationTime: TIME, modificationTime: TIME, labels };
}
