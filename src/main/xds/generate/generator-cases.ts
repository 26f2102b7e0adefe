// Reads a generator golden case's input: a mesh of Dataplanes in Kuma's universal form and the
// one whose proxy gets the configuration.
import fs from 'node:fs';
import { parse } from 'yaml';
import type { DataplaneResource, DataplaneSpec, MeshResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../context/build-mesh-context.js';
import type { MeshContext } from '../context/mesh-context.js';
import type { Proxy, ProxyKind } from './proxy.js';

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
}

export interface GeneratorCase {
  description: string;
  context: MeshContext;
  proxy: Proxy;
}

const TIME = '2024-01-01T00:00:00.000Z';

export function loadGeneratorCase(inputPath: string): GeneratorCase {
  const input = parse(fs.readFileSync(inputPath, 'utf8')) as GeneratorCaseInput;
  const mesh: MeshResource = { type: 'Mesh', meta: meta('', input.mesh), spec: {} };
  const dataplanes = input.dataplanes.map(
    ({ name, labels, ...spec }): DataplaneResource => ({ type: 'Dataplane', meta: meta(input.mesh, name, labels), spec }),
  );
  const dataplane = dataplanes.find((candidate) => candidate.meta.name === input.proxy);
  if (dataplane === undefined) throw new Error(`${inputPath}: no Dataplane named "${input.proxy}"`);
  return {
    description: input.description,
    context: buildMeshContext(mesh, dataplanes),
    proxy: { id: `${input.mesh}.${input.proxy}`, dataplane, kind: input.kind ?? 'envoy', features: new Set(input.features ?? []) },
  };
}

function meta(mesh: string, name: string, labels: Record<string, string> = {}): MeshResource['meta'] {
  return { mesh, name, version: 1, creationTime: TIME, modificationTime: TIME, labels };
}
