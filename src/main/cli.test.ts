import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateBootstrapConfig } from '@grpc/grpc-js-xds/build/src/xds-bootstrap.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runMeshdesk } from '../../test/support/cli-process.js';
import { tempDir } from '../../test/support/temp-dir.js';
import { POLICY_TYPES } from '../shared/policy-types.js';
import { startCore } from './core.js';
import { adminPortOf } from './xds/generate/admin-port.js';
import { DATAPLANE_METADATA_KEY, DATAPLANE_TOKEN_METADATA_KEY } from './xds/generate/bootstrap.js';
import { encodeMessage } from './xds/protocol/encode.js';

/** Each case starts a real process: generous on a busy machine. */
const PROCESS_TIMEOUT = 60_000;

const BACKEND_YAML = `type: Dataplane
mesh: default
name: backend-1
labels:
  team: payments
networking:
  address: 127.0.0.1
  inbound:
    - port: 18080
      servicePort: 8080
      tags:
        kuma.io/service: backend
        kuma.io/protocol: http
  admin:
    port: 9902
`;

let dir: string;
beforeEach(() => {
  dir = tempDir();
});

function dataplaneFile(text = BACKEND_YAML): string {
  const file = join(dir, 'dp.yaml');
  writeFileSync(file, text);
  return file;
}

describe('meshdesk CLI', { timeout: PROCESS_TIMEOUT }, () => {
  it('prints an Envoy bootstrap for the Dataplane file that passes Envoy\'s Bootstrap proto', async () => {
    const { code, stdout, stderr } = await runMeshdesk(['bootstrap', dataplaneFile(), '--ads-address', '127.0.0.1:15678']);

    expect(stderr).toBe('');
    expect(code).toBe(0);
    const bootstrap = parse(stdout) as Record<string, any>;
    expect(() => encodeMessage('envoy.config.bootstrap.v3.Bootstrap', bootstrap)).not.toThrow();
    expect(bootstrap.node).toMatchObject({ id: 'default.backend-1', cluster: 'backend' });
    expect(JSON.parse(bootstrap.node.metadata[DATAPLANE_METADATA_KEY])).toMatchObject({
      type: 'Dataplane',
      mesh: 'default',
      name: 'backend-1',
      labels: { team: 'payments' },
    });
    const adsEndpoint = bootstrap.static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint;
    expect(adsEndpoint.address.socket_address).toEqual({ address: '127.0.0.1', port_value: 15678 });
    expect(bootstrap.admin.address.socket_address.port_value).toBe(9902);
  });

  it('without a running meshdesk, uses the default ADS address 127.0.0.1:5678 and warns, naming it; accepts a JSON Dataplane', async () => {
    const json = JSON.stringify(parse(BACKEND_YAML));
    const dataDir = join(dir, 'nobody-runs-here');

    const { code, stdout, stderr } = await runMeshdesk(['bootstrap', '--data-dir', dataDir, dataplaneFile(json)]);

    expect(code).toBe(0);
    expect(stderr).toContain(`warning: no meshdesk is running on data directory ${dataDir}; the bootstrap uses the default ADS address 127.0.0.1:5678`);
    const socketAddress = (parse(stdout) as Record<string, any>).static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0]
      .endpoint.address.socket_address;
    expect(socketAddress).toEqual({ address: '127.0.0.1', port_value: 5678 });
  });

  it('makes Envoy speak delta ADS with --xds-protocol delta (api_type DELTA_GRPC)', async () => {
    const { code, stdout } = await runMeshdesk(['bootstrap', '--xds-protocol', 'delta', dataplaneFile()]);

    expect(code).toBe(0);
    expect((parse(stdout) as Record<string, any>).dynamic_resources.ads_config.api_type).toBe('DELTA_GRPC');
  });

  it('prints a gRPC bootstrap with --grpc that grpc-js-xds accepts', async () => {
    const { code, stdout } = await runMeshdesk(['bootstrap', '--grpc', '--ads-address=127.0.0.1:15678', dataplaneFile()]);

    expect(code).toBe(0);
    const bootstrap = JSON.parse(stdout) as Record<string, any>;
    const validated = validateBootstrapConfig(bootstrap);
    expect(validated.xdsServers[0]!.server_uri).toBe('127.0.0.1:15678');
    expect(validated.node.id).toBe('default.backend-1');
    expect(JSON.parse(bootstrap.node.metadata[DATAPLANE_METADATA_KEY])).toMatchObject({ name: 'backend-1' });
  });

  it('puts the token of --token-file into the node metadata, and refuses a file that holds anything else', async () => {
    const token = 'zvgL27M_jgYCQp-xmtVQjZ2mUV3a6xgMif0VDKP5veg';
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${token}\n`);

    const envoy = await runMeshdesk(['bootstrap', '--token-file', tokenFile, dataplaneFile()]);
    expect(envoy.code).toBe(0);
    expect((parse(envoy.stdout) as Record<string, any>).node.metadata[DATAPLANE_TOKEN_METADATA_KEY]).toBe(token);

    writeFileSync(tokenFile, 'token: nope\n');
    const refused = await runMeshdesk(['bootstrap', '--grpc', '--token-file', tokenFile, dataplaneFile()]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`${tokenFile} does not hold a token`);
  });

  it('writes the bootstrap to --out and says where', async () => {
    const out = join(dir, 'bootstrap.yaml');

    const { code, stdout } = await runMeshdesk(['bootstrap', dataplaneFile(), '--out', out]);

    expect(code).toBe(0);
    expect(stdout).toContain(`to ${out}`);
    expect((parse(readFileSync(out, 'utf8')) as Record<string, any>).node.id).toBe('default.backend-1');
  });

  it('rejects an invalid Dataplane with exit code 1, naming every violation by field, and writes nothing', async () => {
    const out = join(dir, 'bootstrap.yaml');
    const invalid = `type: Dataplane
name: backend-1
networking:
  address: 127.0.0.1
  inbound:
    - port: 70000
      tags:
        version: v1
`;

    const { code, stdout, stderr } = await runMeshdesk(['bootstrap', dataplaneFile(invalid), '--out', out]);

    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('is not a valid Dataplane');
    expect(stderr).toMatch(/^ {2}networking\.inbound\[0\]\.port: /m);
    expect(stderr).toMatch(/^ {2}networking\.inbound\[0\]\.tags\["kuma\.io\/service"\]: tag has to exist/m);
    expect(() => readFileSync(out)).toThrow();
  });

  it('rejects a file that is not YAML, or not there, with exit code 1', async () => {
    const garbled = await runMeshdesk(['bootstrap', dataplaneFile('type: Dataplane\nnetworking: [unclosed')]);
    expect(garbled.code).toBe(1);
    expect(garbled.stderr).toContain('is not a valid Dataplane: resource is not valid YAML or JSON');

    const missing = join(dir, 'missing.yaml');
    const absent = await runMeshdesk(['bootstrap', missing]);
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain(`cannot read ${missing}`);
  });

  describe('usage errors exit with code 2 and print the usage', () => {
    const cases: Array<[string, string[], string]> = [
      ['no command', [], 'a command is required'],
      ['an unknown command', ['serve'], 'unknown command "serve"'],
      ['an unknown option', ['bootstrap', 'dp.yaml', '--verbose'], 'unknown option "--verbose"'],
      ['no Dataplane file', ['bootstrap'], 'bootstrap needs a Dataplane file'],
      ['two Dataplane files', ['bootstrap', 'a.yaml', 'b.yaml'], 'bootstrap takes one Dataplane file, got 2'],
      ['a flag without its value', ['bootstrap', 'dp.yaml', '--out'], '--out needs a value'],
      ['a malformed ADS address', ['bootstrap', 'dp.yaml', '--ads-address', 'localhost'], '--ads-address must be HOST:PORT'],
      ['an ADS port out of range', ['bootstrap', 'dp.yaml', '--ads-address', '127.0.0.1:70000'], '--ads-address must be HOST:PORT'],
      ['an unknown xDS protocol', ['bootstrap', 'dp.yaml', '--xds-protocol', 'incremental'], '--xds-protocol must be "sotw" or "delta", got "incremental"'],
      ['delta for a gRPC client', ['bootstrap', 'dp.yaml', '--grpc', '--xds-protocol=delta'], '--xds-protocol delta is for Envoy'],
    ];
    for (const [title, args, message] of cases) {
      it(title, async () => {
        const { code, stderr } = await runMeshdesk(args);
        expect(code).toBe(2);
        expect(stderr).toContain(`meshdesk: ${message}`);
        expect(stderr).toContain('usage: npm run meshdesk -- bootstrap');
      });
    }
  });

  it('uses the ADS address of the meshdesk running on the data directory, its token for the Dataplane, and an admin port none of its Dataplanes uses', async () => {
    const core = await startCore({ dataDir: join(dir, 'data'), host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    try {
      const file = dataplaneFile(BACKEND_YAML.replace('  admin:\n    port: 9902\n', ''));
      // A stored Dataplane that serves on the port the file's Dataplane would take on its own.
      const slot = adminPortOf({ mesh: 'default', name: 'backend-1', networking: { address: '127.0.0.1' } }, []);
      await core.manager.create({ type: 'Dataplane', mesh: 'default', name: 'other-1', labels: {}, spec: { networking: { address: '127.0.0.1', inbound: [{ port: slot, tags: { 'kuma.io/service': 'other' } }] } } });

      const { code, stdout, stderr } = await runMeshdesk(['bootstrap', '--data-dir', join(dir, 'data'), file]);

      expect(stderr).toBe('');
      expect(code).toBe(0);
      const bootstrap = parse(stdout) as Record<string, any>;
      expect(bootstrap.static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address).toEqual({
        address: '127.0.0.1',
        port_value: core.xds.port,
      });
      expect(bootstrap.admin.address.socket_address.port_value).not.toBe(slot);
      expect(bootstrap.admin.address.socket_address.port_value).not.toBe(9901);
      expect(bootstrap.node.metadata[DATAPLANE_TOKEN_METADATA_KEY]).toBe(core.xds.dataplaneTokens.tokenFor({ mesh: 'default', name: 'backend-1' }));
    } finally {
      await core.close();
    }
  });

  it('prints its usage on --help and exits 0', async () => {
    const { code, stdout } = await runMeshdesk(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('usage: npm run meshdesk -- bootstrap');
    // Where a token comes from: the API route that gives it (Settings only says who needs one).
    expect(stdout).toContain('saved from GET /meshes/{mesh}/dataplanes/{name}/token');
    expect(stdout).toContain('--grpc');
    // export writes policies too (after the Dataplanes): the help names each type among what it exports.
    const exportHelp = stdout.slice(stdout.indexOf('\nexport:'), stdout.indexOf('\nimport:'));
    expect(exportHelp).toContain('every policy');
    for (const type of POLICY_TYPES) expect(exportHelp).toContain(type);
    expect((await runMeshdesk(['bootstrap', '--help'])).code).toBe(0);
  });
});
