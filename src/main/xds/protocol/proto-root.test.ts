import { expect, test } from 'vitest';
import { findMessageType, messageType, protoRoot } from './proto-root.js';
import { XDS_TYPE_URLS, TYPE_URL_PREFIX } from './type-urls.js';

test('loads the Envoy protos from @grpc/grpc-js-xds once and keeps the snake_case field names', () => {
  expect(protoRoot()).toBe(protoRoot());
  expect(Object.keys(messageType('envoy.service.discovery.v3.DiscoveryRequest').fields)).toContain('response_nonce');
});

test('holds every type meshdesk encodes, the bootstrap included', () => {
  const names = [
    ...XDS_TYPE_URLS.map((typeUrl) => typeUrl.slice(TYPE_URL_PREFIX.length)),
    'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
    'envoy.extensions.filters.http.router.v3.Router',
    'envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy',
    'envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
    'envoy.config.bootstrap.v3.Bootstrap',
    'google.protobuf.FileDescriptorSet', // descriptor.proto, found in protobufjs's own folder
  ];
  expect(names.filter((name) => !findMessageType(name))).toEqual([]);
});

test('Envoy validation rules are readable on the fields', () => {
  const portValue = messageType('envoy.config.core.v3.SocketAddress').fields.port_value!;
  expect(portValue.parsedOptions).toContainEqual({ '(validate.rules)': { uint32: { lte: 65535 } } });
});
