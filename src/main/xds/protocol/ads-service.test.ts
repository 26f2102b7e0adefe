import { describe, expect, test } from 'vitest';
import { adsServiceDefinition, discoveryResponseSize, type DiscoveryResponse } from './ads-service.js';
import { encodeResource } from './encode.js';
import { CLUSTER_TYPE_URL } from './type-urls.js';

const method = adsServiceDefinition().StreamAggregatedResources;

describe('ADS service definition', () => {
  test('is the bidirectional StreamAggregatedResources method of AggregatedDiscoveryService', () => {
    expect(method.path).toBe('/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources');
    expect([method.requestStream, method.responseStream]).toEqual([true, true]);
  });

  test('DiscoveryRequests reach the server with snake_case names and node metadata as plain JSON', () => {
    const bytes = method.requestSerialize({
      version_info: 'v1',
      node: { id: 'default.backend-1', metadata: { 'dataplane.resource': '{"type":"Dataplane"}', 'version': { envoy: 1.3 } } },
      resource_names: ['web'],
      type_url: CLUSTER_TYPE_URL,
      response_nonce: '3',
      error_detail: { code: 3, message: 'bad cluster' },
    });
    expect(method.requestDeserialize(bytes)).toEqual({
      version_info: 'v1',
      node: { id: 'default.backend-1', metadata: { 'dataplane.resource': '{"type":"Dataplane"}', version: { envoy: 1.3 } } },
      resource_names: ['web'],
      type_url: CLUSTER_TYPE_URL,
      response_nonce: '3',
      error_detail: { code: 3, message: 'bad cluster' },
    });
  });

  test('a request with only default values still has every top-level field', () => {
    expect(method.requestDeserialize(Buffer.alloc(0))).toEqual({ version_info: '', resource_names: [], type_url: '', response_nonce: '' });
  });

  test('discoveryResponseSize is the size of the encoded response', () => {
    const response: DiscoveryResponse = {
      version_info: 'v1',
      resources: [encodeResource(CLUSTER_TYPE_URL, { name: 'web', type: 'EDS', eds_cluster_config: { eds_config: { ads: {} } } })],
      type_url: CLUSTER_TYPE_URL,
      nonce: '1',
    };
    const bytes = method.responseSerialize(response);
    expect(discoveryResponseSize(response)).toBe(bytes.length);
    expect(method.responseDeserialize(bytes)).toEqual(response);
  });
});
