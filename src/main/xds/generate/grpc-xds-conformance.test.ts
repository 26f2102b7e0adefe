// What the proxyless generator produces must pass the validation of a real gRPC xDS client:
// each resource is encoded as on the wire, then decoded and validated by grpc-js-xds's own
// resource types, exactly as its XdsClient does with a DiscoveryResponse.
import fs from 'node:fs';
import { register } from '@grpc/grpc-js-xds';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { grpcJsXdsDecode } from '../../../../test/support/grpc-xds.js';
import { SECRET_TYPE_URL, XDS_TYPE_URLS } from '../protocol/type-urls.js';
import { goldenCases } from './golden-files.js';
import type { GeneratedResources } from './resources.js';

describe('proxyless gRPC configuration against grpc-js-xds', () => {
  // Registers the router filter and LB policies, as a client does before dialing `xds:///…`.
  beforeAll(() => register());

  for (const { name, goldenPath } of goldenCases('proxyless-grpc')) {
    it(`grpc-js-xds accepts every resource of proxyless-grpc/${name}`, () => {
      const generated = parse(fs.readFileSync(goldenPath, 'utf8')) as GeneratedResources;
      expect(generated[SECRET_TYPE_URL]).toEqual([]);
      for (const typeUrl of XDS_TYPE_URLS.filter((type) => type !== SECRET_TYPE_URL)) {
        for (const { name: resourceName, resource } of generated[typeUrl]) {
          const result = grpcJsXdsDecode(typeUrl, resource);

          expect(result, `${typeUrl} "${resourceName}"`).toMatchObject({ name: resourceName });
          expect(result.error, `${typeUrl} "${resourceName}"`).toBeUndefined();
        }
      }
    });
  }
});
