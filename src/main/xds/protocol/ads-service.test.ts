import { describe, expect, test } from 'vitest';
import { adsServiceDefinition, discoveryResponseSize, type DeltaDiscoveryResponse, type DiscoveryResponse } from './ads-service.js';
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

const delta = adsServiceDefinition().DeltaAggregatedResources;

describe('ADS service definition, delta', () => {
  test('is the bidirectional DeltaAggregatedResources method of the same service', () => {
    expect(delta.path).toBe('/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources');
    expect([delta.requestStream, delta.responseStream]).toEqual([true, true]);
  });

  test('DeltaDiscoveryRequests reach the server with every top-level field, initial versions as a plain object', () => {
    expect(delta.requestDeserialize(Buffer.alloc(0))).toEqual({
      type_url: '',
      resource_names_subscribe: [],
      resource_names_unsubscribe: [],
      initial_resource_versions: {},
      response_nonce: '',
    });
    const request = {
      node: { id: 'default.backend-1' },
      type_url: CLUSTER_TYPE_URL,
      resource_names_subscribe: ['web', '*'],
      resource_names_unsubscribe: ['old'],
      initial_resource_versions: { web: 'abc' },
      response_nonce: '4',
      error_detail: { code: 3, message: 'bad cluster' },
    };
    expect(delta.requestDeserialize(delta.requestSerialize(request))).toEqual(request);
  });

  test('discoveryResponseSize is the size of an encoded delta response too', () => {
    const response: DeltaDiscoveryResponse = {
      system_version_info: 'v1',
      resources: [{ name: 'web', version: 'abc', resource: encodeResource(CLUSTER_TYPE_URL, { name: 'web', type: 'STATIC' }) }],
      type_url: CLUSTER_TYPE_URL,
      removed_resources: ['old'],
      nonce: '1',
    };
    const bytes = delta.responseSerialize(response);
    expect(discoveryResponseSize(response)).toBe(bytes.length);
    expect(delta.responseDeserialize(bytes)).toEqual(response);
  });
});
