import { validateBootstrapConfig } from '@grpc/grpc-js-xds/build/src/xds-bootstrap.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { tempDatabase } from '../../../test/support/temp-database.js';
import { EventBus } from '../events/event-bus.js';
import { DataplaneTokens } from '../security/dataplane-tokens.js';
import type { TokenMode } from '../security/token-requirement.js';
import { ResourceManager } from '../manager/resource-manager.js';
import { ResourceStore } from '../store/resource-store.js';
import { DATAPLANE_METADATA_KEY, DATAPLANE_TOKEN_METADATA_KEY } from '../xds/generate/bootstrap.js';
import { encodeMessage } from '../xds/protocol/encode.js';
import { startApiServer, type RunningApiServer } from './api-server.js';
import { bootstrapRoutes } from './bootstrap-routes.js';
import type { AdsAddress } from './inspection-routes.js';
import { Router } from './router.js';
import { tokenTable } from '../store/token-table.js';

const ADS_PORT = 15678;

let dir: string;
let manager: ResourceManager;
let tokens: DataplaneTokens;
let servers: RunningApiServer[];
let tokenMode: TokenMode;

beforeEach(async () => {
  const database = tempDatabase();
  dir = database.dir;
  const db = database.open();
  manager = new ResourceManager({ store: new ResourceStore(db), events: new EventBus() });
  tokens = new DataplaneTokens(tokenTable(db), Buffer.alloc(32, 1));
  await manager.ensureDefaultMesh();
  await manager.create({
    type: 'Dataplane',
    mesh: 'default',
    name: 'backend-1',
    labels: { team: 'payments' },
    spec: {
      networking: {
        address: '127.0.0.1',
        inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'backend' } }],
        admin: { port: 9902 },
      },
    },
  });
  servers = [];
  tokenMode = 'mtls-meshes';
});

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** The bootstrap routes alone, over HTTP, for an ADS server listening at `adsAddress`. */
async function serve(adsAddress: AdsAddress = { host: '127.0.0.1', port: ADS_PORT }): Promise<string> {
  const server = await startApiServer({ host: '127.0.0.1', port: 0, router: new Router(bootstrapRoutes({ manager, adsAddress, dataplaneTokens: tokens, tokenMode: () => tokenMode, dataDir: dir })) });
  servers.push(server);
  return `${server.url}/meshes/default/dataplanes/backend-1/bootstrap`;
}

function adsSocketAddress(bootstrap: any): unknown {
  return bootstrap.static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address;
}

describe('bootstrap API', () => {
  it("serves the stored Dataplane's Envoy bootstrap as YAML, pointing at the running ADS server", async () => {
    const response = await fetch(await serve());

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/yaml');
    const bootstrap = parse(await response.text());
    expect(() => encodeMessage('envoy.config.bootstrap.v3.Bootstrap', bootstrap)).not.toThrow();
    expect(bootstrap.node).toMatchObject({ id: 'default.backend-1', cluster: 'backend' });
    expect(JSON.parse(bootstrap.node.metadata[DATAPLANE_METADATA_KEY])).toMatchObject({ name: 'backend-1', labels: { team: 'payments' } });
    expect(adsSocketAddress(bootstrap)).toEqual({ address: '127.0.0.1', port_value: ADS_PORT });
    expect(bootstrap.admin.address.socket_address.port_value).toBe(9902);
  });

  it('gives each Dataplane without an admin port its own, never 9901, and writes it into the Dataplane the bootstrap carries', async () => {
    for (const name of ['web-1', 'web-2', 'web-3']) {
      await manager.create({ type: 'Dataplane', mesh: 'default', name, labels: {}, spec: { networking: { address: '127.0.0.1', outbound: [{ port: 10001, tags: { 'kuma.io/service': 'backend' } }] } } });
    }
    const url = await serve();
    const ports: number[] = [];
    for (const name of ['web-1', 'web-2', 'web-3']) {
      const bootstrap = parse(await (await fetch(url.replace('backend-1', name))).text());
      const port = bootstrap.admin.address.socket_address.port_value as number;
      expect(JSON.parse(bootstrap.node.metadata[DATAPLANE_METADATA_KEY]).networking.admin).toEqual({ port });
      // Asked again, the same port.
      expect(parse(await (await fetch(url.replace('backend-1', name))).text()).admin.address.socket_address.port_value).toBe(port);
      ports.push(port);
    }
    expect(new Set([...ports, 9901, 9902]).size).toBe(5);
  });

  it('serves the same bootstrap as JSON with ?format=json', async () => {
    const url = await serve();

    const yaml = parse(await (await fetch(url)).text());
    const json = await (await fetch(`${url}?format=json`)).json();

    expect(json).toEqual(yaml);
  });

  it('serves the gRPC xDS bootstrap with ?proxyType=grpc, which grpc-js-xds accepts', async () => {
    const response = await fetch(`${await serve()}?proxyType=grpc`);

    expect(response.headers.get('content-type')).toBe('application/json');
    const bootstrap = (await response.json()) as any;
    const validated = validateBootstrapConfig(bootstrap);
    expect(validated.xdsServers[0]!.server_uri).toBe(`127.0.0.1:${ADS_PORT}`);
    expect(validated.node.id).toBe('default.backend-1');
    expect(JSON.parse(bootstrap.node.metadata[DATAPLANE_METADATA_KEY])).toMatchObject({ name: 'backend-1' });
  });

  it('makes Envoy speak delta ADS with ?xdsProtocol=delta (api_type DELTA_GRPC); State of the World (GRPC) by default', async () => {
    const url = await serve();

    const sotw = (await (await fetch(`${url}?format=json`)).json()) as any;
    const delta = (await (await fetch(`${url}?format=json&xdsProtocol=delta`)).json()) as any;

    expect(() => encodeMessage('envoy.config.bootstrap.v3.Bootstrap', delta)).not.toThrow();
    expect([sotw.dynamic_resources.ads_config.api_type, delta.dynamic_resources.ads_config.api_type]).toEqual(['GRPC', 'DELTA_GRPC']);
    expect({ ...delta, dynamic_resources: sotw.dynamic_resources }).toEqual(sotw); // nothing else differs
    expect((await (await fetch(`${url}?format=json&xdsProtocol=sotw`)).json())).toEqual(sotw);
  });

  it('points at loopback when the ADS server listens on every interface', async () => {
    const bootstrap = await (await fetch(`${await serve({ host: '0.0.0.0', port: ADS_PORT })}?format=json`)).json();

    expect(adsSocketAddress(bootstrap)).toEqual({ address: '127.0.0.1', port_value: ADS_PORT });
  });

  describe('refuses a bad query with 400 naming the parameter', () => {
    const cases: Array<[string, string]> = [
      ['?format=xml', 'format must be "yaml" or "json", got "xml"'],
      ['?proxyType=linkerd', 'proxyType must be "envoy" or "grpc", got "linkerd"'],
      ['?proxyType=grpc&format=yaml', 'format must be "json" (the gRPC bootstrap is a JSON file), got "yaml"'],
      ['?xdsProtocol=incremental', 'xdsProtocol must be "sotw" or "delta", got "incremental"'],
      ['?proxyType=grpc&xdsProtocol=delta', 'xdsProtocol must be "sotw" (gRPC xDS clients speak State of the World only), got "delta"'],
    ];
    for (const [query, details] of cases) {
      it(query, async () => {
        const response = await fetch(`${await serve()}${query}`);
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ details });
      });
    }
  });

  it("puts the Dataplane's token into either bootstrap by itself, or the one ?token= names, and refuses one that is not its token now", async () => {
    const url = await serve();
    const current = tokens.tokenFor({ mesh: 'default', name: 'backend-1' });
    const grpcOf = async (query: string) => (await (await fetch(`${url}?proxyType=grpc${query}`)).json()) as { node: { metadata: Record<string, unknown> } };

    expect(parse(await (await fetch(url)).text()).node.metadata[DATAPLANE_TOKEN_METADATA_KEY]).toBe(current);
    expect((await grpcOf('')).node.metadata[DATAPLANE_TOKEN_METADATA_KEY]).toBe(current);

    const { token } = tokens.issue({ mesh: 'default', name: 'backend-1' });
    const envoy = parse(await (await fetch(`${url}?token=${token}`)).text());
    expect(envoy.node.metadata[DATAPLANE_TOKEN_METADATA_KEY]).toBe(token);
    const grpc = await grpcOf(`&token=${token}`);
    expect(() => validateBootstrapConfig(grpc)).not.toThrow();
    expect(grpc.node.metadata[DATAPLANE_TOKEN_METADATA_KEY]).toBe(token);
    expect((await grpcOf('')).node.metadata[DATAPLANE_TOKEN_METADATA_KEY]).toBe(token);

    tokens.issue({ mesh: 'default', name: 'backend-1' }); // replaces it
    const stale = await fetch(`${url}?token=${token}`);
    expect(stale.status).toBe(400);
    expect(((await stale.json()) as { causes: unknown }).causes).toEqual([
      { field: 'token', message: 'the token is not the one issued for Dataplane "backend-1" in mesh "default" (replaced, or another Dataplane\'s, or mistyped)' },
    ]);
  });

  it('gives a revoked Dataplane a bootstrap without a token where none is required, and refuses it (409) where one is', async () => {
    const url = await serve();
    tokens.revoke({ mesh: 'default', name: 'backend-1' });

    expect(parse(await (await fetch(url)).text()).node.metadata[DATAPLANE_TOKEN_METADATA_KEY]).toBeUndefined();

    tokenMode = 'enabled';
    const refused = await fetch(url);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { details: string }).details).toBe(
      'the bootstrap of Dataplane "backend-1" in mesh "default" needs its token (xds.dataplaneTokens is enabled), and its token was revoked or cannot be shown again: issue a new one with POST /meshes/default/dataplanes/backend-1/token',
    );
  });

  it('answers 404 for a Dataplane that is not stored', async () => {
    const url = (await serve()).replace('backend-1', 'ghost-1');

    const response = await fetch(url);

    expect(response.status).toBe(404);
    expect(((await response.json()) as { details: string }).details).toContain('ghost-1');
  });
});
