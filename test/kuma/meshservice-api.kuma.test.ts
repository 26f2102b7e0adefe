// Kuma's API goldens for the service model (kuma-cases/meshservice/api-resources): MeshService,
// MeshExternalService, MeshMultiZoneService PUT/GET shape, warnings, `_dataplanes`, `_hostnames`,
// replayed on a real core as Kuma's api-server tests run them: without the zone's background
// components (generator, VIP allocator, hostname generator, status updater), which Kuma's test does not start.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KUMA_CASES_DIR } from '../support/kuma-cases.js';
import { apiCasesIn, runApiCase } from './support/api-cases.js';

describe("Kuma's MeshService API cases", () => {
  const cases = apiCasesIn(join(KUMA_CASES_DIR, 'meshservice', 'api-resources'));

  it('are all there', () => {
    expect(cases.map(({ file }) => file)).toHaveLength(8);
  });

  for (const apiCase of cases) {
    it(apiCase.file, async () => {
      const results = await runApiCase(apiCase, { meshServiceComponents: false });
      for (const result of results) {
        expect({ id: result.action.id, status: result.status, body: result.body }).toEqual({
          id: result.action.id,
          status: result.action.status,
          body: result.action.golden === undefined ? result.body : result.action.golden,
        });
      }
    });
  }
});
