import fs from 'node:fs';
import { validateBootstrapConfig } from '@grpc/grpc-js-xds/build/src/xds-bootstrap.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { DataplaneResource, DataplaneSpec } from '../../../shared/resources.js';
import { parseResourceText } from '../../resources/parse.js';
import { validateResource } from '../../resources/validate.js';
import {
  DATAPLANE_METADATA_KEY,
  bootstrapToYaml,
  generateEnvoyBootstrap,
  generateGrpcBootstrap,
  type GrpcBootstrapOptions,
} from './bootstrap.js';
import { expectToMatchGoldenYaml, goldenCases } from './golden-files.js';

interface UniversalDataplane extends DataplaneSpec {
  mesh: string;
  name: string;
  labels?: Record<string, string>;
}

interface BootstrapCaseInput {
  description: string;
  envoy?: { adsHost: string; adsPort: number; adminPort?: number; dataplane: UniversalDataplane };
  grpc?: GrpcBootstrapOptions;
}

const TIME = '2024-01-01T00:00:00.000Z';

function toResource({ mesh, name, labels, ...spec }: UniversalDataplane): DataplaneResource {
  return {
    type: 'Dataplane',
    meta: { mesh, name, version: 1, creationTime: TIME, modificationTime: TIME, labels: labels ?? {} },
    spec,
  };
}

function generate(input: BootstrapCaseInput): object {
  if (input.envoy) return generateEnvoyBootstrap({ ...input.envoy, dataplane: toResource(input.envoy.dataplane) });
  return generateGrpcBootstrap(input.grpc!);
}

describe('bootstrap', () => {
  for (const { name, inputPath, goldenPath } of goldenCases('bootstrap')) {
    const input = parse(fs.readFileSync(inputPath, 'utf8')) as BootstrapCaseInput;
    it(`${input.description} (${name})`, () => {
      expectToMatchGoldenYaml(generate(input), goldenPath);
    });
  }

  it('carries the Dataplane in the metadata so that the resource validator reads it back, without a stale version', () => {
    const universal: UniversalDataplane = {
      mesh: 'default',
      name: 'web-1',
      labels: { team: 'a' },
      networking: { address: '127.0.0.1', outbound: [{ port: 10002, tags: { 'kuma.io/service': 'backend' } }] },
    };
    const dataplane = { ...toResource(universal), meta: { ...toResource(universal).meta, version: 7 } };

    const bootstrap = generateEnvoyBootstrap({ dataplane, adsHost: '127.0.0.1', adsPort: 5678 });

    const metadata = (bootstrap.node as { metadata: Record<string, string> }).metadata;
    const readBack = validateResource(parseResourceText(metadata[DATAPLANE_METADATA_KEY]!), { type: 'Dataplane' });
    // With the admin port it runs with, so that the registered Dataplane keeps it.
    const adminPort = (bootstrap.admin as { address: { socket_address: { port_value: number } } }).address.socket_address.port_value;
    const spec = { networking: { ...dataplane.spec.networking, admin: { port: adminPort } } };
    expect(readBack).toEqual({ type: 'Dataplane', mesh: 'default', name: 'web-1', labels: { team: 'a' }, spec });
    expect(readBack.version).toBeUndefined();
  });

  it('prefers an explicit admin port over the Dataplane one', () => {
    const dataplane = toResource({ mesh: 'default', name: 'web-1', networking: { address: '127.0.0.1', admin: { port: 9902 } } });

    const bootstrap = generateEnvoyBootstrap({ dataplane, adsHost: '127.0.0.1', adsPort: 5678, adminPort: 9950 });

    expect(bootstrap.admin).toEqual({ address: { socket_address: { address: '127.0.0.1', port_value: 9950 } } });
  });

  it('writes YAML that reads back as the same bootstrap, the Dataplane JSON on one line', () => {
    const dataplane = toResource({ mesh: 'default', name: 'web-1', networking: { address: '127.0.0.1' } });
    const bootstrap = generateEnvoyBootstrap({ dataplane, adsHost: '127.0.0.1', adsPort: 5678 });

    const yaml = bootstrapToYaml(bootstrap);

    expect(parse(yaml)).toEqual(bootstrap);
    expect(yaml.split('\n').filter((line) => line.includes(DATAPLANE_METADATA_KEY))).toHaveLength(1);
  });

  it('writes a gRPC bootstrap that grpc-js-xds accepts', () => {
    const dataplane = toResource({ mesh: 'default', name: 'client-1', networking: { address: '127.0.0.1' } });
    const bootstrap = generateGrpcBootstrap({
      nodeId: 'default.client-1',
      adsHost: '127.0.0.1',
      adsPort: 5678,
      locality: { region: 'local', zone: 'default', sub_zone: 'a' },
      dataplane,
    });

    const info = validateBootstrapConfig(bootstrap);

    expect(info.xdsServers[0]).toMatchObject({ server_uri: '127.0.0.1:5678', server_features: ['xds_v3'] });
    expect(info.node.id).toBe('default.client-1');
    expect(info.node.locality).toEqual({ region: 'local', zone: 'default', sub_zone: 'a' });
    expect(info.node.metadata?.fields?.[DATAPLANE_METADATA_KEY]).toBeDefined();
  });

  it('brackets an IPv6 ADS address in the gRPC server URI', () => {
    const bootstrap = generateGrpcBootstrap({ nodeId: 'default.client-1', adsHost: '::1', adsPort: 5678, locality: { zone: 'default' } });
    expect(validateBootstrapConfig(bootstrap).xdsServers[0]).toMatchObject({ server_uri: '[::1]:5678' });
  });
});
