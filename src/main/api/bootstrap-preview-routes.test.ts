import { validateBootstrapConfig } from '@grpc/grpc-js-xds/build/src/xds-bootstrap.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { tempDatabase } from '../../../test/support/temp-database.js';
import { EventBus } from '../events/event-bus.js';
import { ResourceManager } from '../manager/resource-manager.js';
import { ResourceStore } from '../store/resource-store.js';
import { DATAPLANE_METADATA_KEY } from '../xds/generate/bootstrap.js';
import { encodeMessage } from '../xds/protocol/encode.js';
import { startApiServer, type RunningApiServer } from './api-server.js';
import { bootstrapPreviewRoutes } from './bootstrap-preview-routes.js';
import { BodyReaderPool } from './body-reading/body-reader-pool.js';
import { Router } from './router.js';
import { DataplaneTokens } from '../security/dataplane-tokens.js';
import { tokenTable } from '../store/token-table.js';

const ADS_PORT = 15678;

const DATAPLANE_YAML = `type: Dataplane
mesh: default
name: web-1
networking:
  address: 127.0.0.1
  inbound:
    - port: 18080
      servicePort: 8080
      tags:
        kuma.io/service: web
  outbound:
    - port: 10001
      tags:
        kuma.io/service: echo
`;

let dir: string;
let manager: ResourceManager;
let server: RunningApiServer;

beforeEach(async () => {
  const database = tempDatabase();
  dir = database.dir;
  const db = database.open();
  manager = new ResourceManager({ store: new ResourceStore(db), events: new EventBus() });
  await manager.ensureDefaultMesh();
  const router = new Router(bootstrapPreviewRoutes({ manager, adsAddress: { host: '127.0.0.1', port: ADS_PORT }, dataplaneTokens: new DataplaneTokens(tokenTable(db), Buffer.alloc(32, 1)), tokenMode: () => 'mtls-meshes', dataDir: dir, bodyReader: new BodyReaderPool() }));
  server = await startApiServer({ host: '127.0.0.1', port: 0, router });
});

afterEach(async () => {
  await server.close();
});

function post(body: string, query = ''): Promise<Response> {
  return fetch(`${server.url}/bootstrap${query}`, { method: 'POST', body });
}

describe('bootstrap preview API', () => {
  it('renders the Envoy bootstrap of a posted Dataplane without storing it', async () => {
    const response = await post(DATAPLANE_YAML);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/yaml');
    const bootstrap = parse(await response.text());
    expect(() => encodeMessage('envoy.config.bootstrap.v3.Bootstrap', bootstrap)).not.toThrow();
    expect(bootstrap.node).toMatchObject({ id: 'default.web-1', cluster: 'web' });
    expect(JSON.parse(bootstrap.node.metadata[DATAPLANE_METADATA_KEY])).toMatchObject({
      name: 'web-1',
      networking: { outbound: [{ port: 10001 }] },
    });
    expect(await manager.list('Dataplane')).toEqual([]);
  });

  it('renders the gRPC xDS bootstrap with ?proxyType=grpc, which grpc-js-xds accepts', async () => {
    const response = await post(DATAPLANE_YAML, '?proxyType=grpc');

    expect(response.headers.get('content-type')).toBe('application/json');
    const bootstrap = (await response.json()) as any;
    const validated = validateBootstrapConfig(bootstrap);
    expect(validated.node.id).toBe('default.web-1');
    expect(validated.xdsServers[0]!.server_uri).toBe(`127.0.0.1:${ADS_PORT}`);
    expect(JSON.parse(bootstrap.node.metadata[DATAPLANE_METADATA_KEY])).toMatchObject({ name: 'web-1' });
  });

  it('refuses an invalid Dataplane with 400 naming every field at fault', async () => {
    const invalid = DATAPLANE_YAML.replace('port: 18080', 'port: 70000').replace('kuma.io/service: echo', 'other: echo');

    const response = await post(invalid);

    expect(response.status).toBe(400);
    const body = (await response.json()) as { causes: { field: string }[] };
    expect(body.causes.map((cause) => cause.field)).toEqual(['networking.inbound[0].port', 'networking.outbound[0].tags']);
  });

  it('refuses a Dataplane of a mesh that does not exist, at its mesh field', async () => {
    const response = await post(DATAPLANE_YAML.replace('mesh: default', 'mesh: nowhere'));

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ causes: [{ field: 'mesh', message: 'mesh "nowhere" does not exist' }] });
  });
});
