// Kuma's `kuma.io/effect: shadow` goldens (kuma-cases/meshservice/shadow-config-diff): a shadow
// MeshTimeout leaves the proxy's configuration alone, `_config?shadow=true` applies it, and
// `include=diff` is the JSON Patch between the two, `test` ops included; bad query values are Kuma's 400.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startTestCore } from '../support/core.js';
import { KUMA_CASES_DIR } from '../support/kuma-cases.js';
import { putResource } from '../support/put-resource.js';

const CASE_DIR = join(KUMA_CASES_DIR, 'meshservice/shadow-config-diff');
const golden = (file: string) => JSON.parse(readFileSync(join(CASE_DIR, file), 'utf8'));
const LISTENER = 'type.googleapis.com/envoy.config.listener.v3.Listener';
const INBOUND = 'inbound:127.0.0.1:8080';

/** The case's resources in a mesh of their own without initial policies, as Kuma's test stores them (its DataplaneInsight is the connection meshdesk does not need). */
async function startCaseCore() {
  const core = await startTestCore();
  const documents = parseAllDocuments(readFileSync(join(CASE_DIR, 'input.yaml'), 'utf8')).map((document) => document.toJS() as Record<string, any>);
  await putResource(core.api.url, '/meshes/shadow-case', { type: 'Mesh', name: 'shadow-case', skipCreatingInitialPolicies: ['*'] });
  for (const resource of documents) {
    if (resource.type === 'Mesh' || resource.type === 'DataplaneInsight') continue;
    const path = resource.type === 'Dataplane' ? 'dataplanes' : 'meshtimeouts';
    await putResource(core.api.url, `/meshes/shadow-case/${path}/${resource.name}`, { ...resource, mesh: 'shadow-case' });
  }
  const get = async (query: string) => {
    const response = await fetch(`${core.api.url}/meshes/shadow-case/dataplanes/dp-1/_config${query}`);
    return { status: response.status, body: (await response.json()) as any };
  };
  return { core, get };
}

const idleTimeout = (xds: any) => xds[LISTENER][INBOUND].filterChains[0].filters[0].typedConfig.idleTimeout;

describe("Kuma's shadow config goldens", () => {
  it('shadow=false: the shadow MeshTimeout is not applied, and the diff is empty', async () => {
    const { get } = await startCaseCore();
    const plain = await get('?shadow=false');
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body)).toEqual(['xds']);
    expect(plain.body.xds).toEqual(golden('proxyconfig_shadow-false.golden.json').xds);
    const withDiff = await get('?shadow=false&include=diff');
    expect(withDiff.body.diff).toEqual(golden('proxyconfig_shadow-false_diff.golden.json').diff);
  });

  it('shadow=true: applied, and the diff is exactly Kuma’s (test, remove, add)', async () => {
    const { get } = await startCaseCore();
    const shadow = await get('?shadow=true');
    expect(shadow.body.xds).toEqual(golden('proxyconfig_shadow-true.golden.json').xds);
    expect(idleTimeout(shadow.body.xds)).toBe('322s');
    const withDiff = await get('?shadow=true&include=diff');
    expect(withDiff.status).toBe(200);
    expect(withDiff.body).toEqual(golden('proxyconfig_shadow-true_diff.golden.json'));
  });

  it.each([
    ['?shadow=trrrue', 'proxyconfig_badrequest_1.golden.json'],
    ['?shadow=true&include=something', 'proxyconfig_badrequest_2.golden.json'],
  ])('%s is refused as Kuma refuses it', async (query, file) => {
    const { get } = await startCaseCore();
    const answer = await get(query);
    const expected = golden(file);
    expect(answer.status).toBe(expected.status);
    expect({ title: answer.body.title, detail: answer.body.detail, details: answer.body.details }).toEqual({ title: expected.title, detail: expected.detail, details: expected.details });
  });
});
