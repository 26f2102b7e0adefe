// Generated configuration must pass Envoy's protos: every field and enum known, every Any of a
// known type, every PGV rule kept (SPEC §6). Checked on the golden files, which the generator
// tests keep equal to what the generators produce.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { encodeMessage, encodeResource } from '../protocol/encode.js';
import { XDS_TYPE_URLS } from '../protocol/type-urls.js';
import { goldenCases } from './golden-files.js';
import type { GeneratedResources } from './resources.js';

const GENERATOR_SUITES = ['inbound-proxy', 'outbound-proxy', 'proxyless-grpc'];
const ENVOY_BOOTSTRAP_TYPE = 'envoy.config.bootstrap.v3.Bootstrap';

describe('generated configuration against Envoy protos', () => {
  for (const suite of GENERATOR_SUITES) {
    for (const { name, goldenPath } of goldenCases(suite)) {
      it(`encodes every resource of ${suite}/${name}`, () => {
        const generated = parse(fs.readFileSync(goldenPath, 'utf8')) as GeneratedResources;
        let count = 0;
        for (const typeUrl of XDS_TYPE_URLS) {
          for (const { resource } of generated[typeUrl]) {
            expect(encodeResource(typeUrl, resource).value.length).toBeGreaterThan(0);
            count++;
          }
        }
        expect(count).toBeGreaterThan(0);
      });
    }
  }

  for (const { name, goldenPath } of goldenCases('bootstrap')) {
    const bootstrap = parse(fs.readFileSync(goldenPath, 'utf8')) as Record<string, unknown>;
    if ('xds_servers' in bootstrap) continue; // gRPC's bootstrap is its own JSON format, checked in bootstrap.test.ts
    it(`encodes the Envoy bootstrap bootstrap/${name} as a Bootstrap`, () => {
      expect(encodeMessage(ENVOY_BOOTSTRAP_TYPE, bootstrap).length).toBeGreaterThan(0);
    });
  }
});
