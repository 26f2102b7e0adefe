import { PROTOCOLS, PROTOCOL_TAG, SERVICE_TAG, type DataplaneResource, type MeshResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../context/build-mesh-context.js';
import { encodeResource } from '../protocol/encode.js';
import { XDS_TYPE_URLS } from '../protocol/type-urls.js';
import { generateProxyResources } from './profile.js';
import type { ProxyKind } from '../../../shared/proxy-kind.js';

const WARM_UP = 'meshdesk-warm-up';

/**
 * protobufjs builds each message type's converter and encoder the first time it meets the type:
 * about 80 ms for the types of one Envoy configuration, paid inside the first proxy's generation,
 * with the event loop held (in a storm of connections, every stream waits). Generating and encoding
 * the configuration of a small made-up mesh, one service per protocol and both proxy kinds, before
 * the server listens pays it at start-up instead. Nothing is stored or published.
 */
export function warmUpEncoders(): void {
  const time = new Date(0).toISOString();
  const meta = (mesh: string, name: string) => ({ mesh, name, version: 1, creationTime: time, modificationTime: time, labels: {} });
  const mesh: MeshResource = { type: 'Mesh', meta: meta('', WARM_UP), spec: {} };
  const services = PROTOCOLS.map((protocol, index) => ({ service: `${protocol}-service`, protocol, port: 10_001 + index }));
  const dataplane: DataplaneResource = {
    type: 'Dataplane',
    meta: meta(WARM_UP, WARM_UP),
    spec: {
      networking: {
        address: '127.0.0.1',
        inbound: services.map(({ service, protocol, port }) => ({ port: port + 10_000, servicePort: port + 20_000, tags: { [SERVICE_TAG]: service, [PROTOCOL_TAG]: protocol } })),
        outbound: services.map(({ service, port }) => ({ port, tags: { [SERVICE_TAG]: service } })),
      },
    },
  };
  const context = buildMeshContext(mesh, [dataplane]);
  for (const kind of ['envoy', 'grpc'] satisfies ProxyKind[]) {
    const generated = generateProxyResources(context, { id: `${WARM_UP}.${WARM_UP}`, dataplane, kind });
    for (const typeUrl of XDS_TYPE_URLS) {
      for (const { resource } of generated[typeUrl]) encodeResource(typeUrl, resource);
    }
  }
}
