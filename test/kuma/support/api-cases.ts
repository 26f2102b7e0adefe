// Kuma's API server goldens (../shared/kuma-cases/api/) as cases replayed against a real meshdesk core:
// the input's YAML documents are written straight into the store, as Kuma's tests put them there (so
// without the labels Kuma's managers compute on write), then each action is sent over HTTP and its status and body
// compared with Kuma's. Shared by test/kuma/api.kuma.test.ts and scripts/conformance/api.ts.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { DATABASE_FILE, startCore } from '../../../src/main/core.js';
import type { CoreOptions } from '../../../src/main/core-options.js';
import { validateResource } from '../../../src/main/resources/validate.js';
import type { ResourceInput } from '../../../src/shared/resources.js';
import { openDatabase } from '../../../src/main/store/database.js';
import { ResourceStore } from '../../../src/main/store/resource-store.js';
import { withControlPlaneCert } from '../../support/with-control-plane-cert.js';
import { KUMA_CASES_DIR } from '../../support/kuma-cases.js';

const API_CASES = join(KUMA_CASES_DIR, 'api');
/** Kuma's tests store resources with zero times; meshdesk's are real, so both sides are read as this. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

export interface ApiAction {
  /** `<file>_NN` (or `<file>` for a file with one action), as known-differences.ts names cases. */
  id: string;
  method: string;
  path: string;
  status: number;
  body?: string;
  golden?: unknown;
}

export interface ApiCase {
  file: string;
  /** YAML documents stored before the actions. */
  preload: string;
  actions: ApiAction[];
}

export interface ActionResult {
  action: ApiAction;
  status: number;
  body: unknown;
  matches: boolean;
}

/** Every case with its actions; kumactl's apply bodies are one more case, PUT into an empty store. */
export function apiCases(): ApiCase[] {
  const cases = apiCasesIn(API_CASES);
  const kumactlApply = (name: string, path: string): ApiAction => ({
    id: name,
    method: 'PUT',
    path,
    status: 201,
    body: readFileSync(join(API_CASES, `${name}.request.json`), 'utf8'),
    golden: {},
  });
  cases.push({
    file: 'kumactl_apply',
    preload: 'type: Mesh\nname: default\n',
    actions: [kumactlApply('kumactl_apply_mesh', '/meshes/sample'), kumactlApply('kumactl_apply_dataplane', '/meshes/default/dataplanes/sample')],
  });
  return cases;
}

/** The cases of a folder laid out as Kuma's api-server testdata (`<name>.input.yaml`, `<name>_NN.{request,golden}.json`). */
export function apiCasesIn(dir: string): ApiCase[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.input.yaml'))
    .sort()
    .map((file) => readCase(dir, file.slice(0, -'.input.yaml'.length), readFileSync(join(dir, file), 'utf8')));
}

function readCase(dir: string, base: string, text: string): ApiCase {
  const lines = text.split('\n').filter((line) => /^#\/\S* \d{3}/.test(line));
  const actions = lines.map((line, index): ApiAction => {
    const [, path, status, method] = /^#(\S+) (\d{3})(?: method=(\w+))?/.exec(line)!;
    const id = lines.length === 1 ? base : `${base}_${String(index).padStart(2, '0')}`;
    const request = join(dir, `${id}.request.json`);
    const golden = join(dir, `${id}.golden.json`);
    return {
      id,
      method: method ?? 'GET',
      path: path!,
      status: Number(status),
      ...(existsSync(request) && { body: readFileSync(request, 'utf8') }),
      ...(existsSync(golden) && { golden: JSON.parse(readFileSync(golden, 'utf8')) as unknown }),
    };
  });
  return { file: `${base}.input.yaml`, preload: text, actions };
}

/** Runs a case's actions in order on a fresh core; each result says whether status and body are Kuma's. */
export async function runApiCase(apiCase: ApiCase, options: Partial<CoreOptions> = {}): Promise<ActionResult[]> {
  const dataDir = withControlPlaneCert(mkdtempSync(join(tmpdir(), 'meshdesk-api-case-')));
  const keepsDefault = preload(dataDir, apiCase.preload);
  const core = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0, ...options });
  try {
    if (!keepsDefault) await core.manager.delete({ type: 'Mesh', mesh: '', name: 'default' });
    const results: ActionResult[] = [];
    for (const action of apiCase.actions) {
      const response = await fetch(`${core.api.url}${action.path}`, {
        method: action.method,
        ...(action.body !== undefined && { body: action.body }),
      });
      const text = await response.text();
      const body = normalize(text === '' ? undefined : (JSON.parse(text) as unknown), core.api.url);
      const matches = response.status === action.status && (action.golden === undefined || isDeepStrictEqual(body, action.golden));
      results.push({ action, status: response.status, body, matches });
    }
    return results;
  } finally {
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Stores the documents as given in the data directory's database, past the manager, before a core
 * opens it. meshdesk starts with the mesh `default`; Kuma's store starts empty, so it goes unless the
 * input has it or puts something in it: answers whether it stays.
 */
function preload(dataDir: string, text: string): boolean {
  // A `status` (the service model's) is stored as given, as Kuma's tests store it; a PUT would drop it.
  const inputs = parseAllDocuments(text)
    .map((document) => document.toJS() as unknown)
    .filter((value) => value !== null && value !== undefined)
    .map((value) => {
      const { status } = value as { status?: ResourceInput['status'] };
      return { ...validateResource(value), ...(status !== undefined && { status }) };
    });
  const keepsDefault = inputs.some((input) => (input.type === 'Mesh' ? input.name === 'default' : input.mesh === 'default'));
  const db = openDatabase(join(dataDir, DATABASE_FILE));
  try {
    const store = new ResourceStore(db);
    for (const input of [...inputs].sort((a, b) => (a.type === 'Mesh' ? 0 : 1) - (b.type === 'Mesh' ? 0 : 1))) {
      if (store.version(input) === undefined) store.create(input);
      else store.update(input);
    }
  } finally {
    db.close();
  }
  return keepsDefault;
}

/**
 * What the goldens normalise: times are Kuma's zero time, `next` names `{{address}}`. A resource's
 * `version` (an object with a `type`) is meshdesk's own, for optimistic concurrency: Kuma has none.
 */
function normalize(value: unknown, apiUrl: string): unknown {
  if (Array.isArray(value)) return value.map((item) => normalize(item, apiUrl));
  if (typeof value !== 'object' || value === null) return value;
  const isResource = 'type' in value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !(isResource && key === 'version'))
      .map(([key, item]) => {
        if ((key === 'creationTime' || key === 'modificationTime') && typeof item === 'string') return [key, ZERO_TIME];
        if (key === 'next' && typeof item === 'string') return [key, item.replace(apiUrl, 'http://{{address}}')];
        return [key, normalize(item, apiUrl)];
      }),
  );
}
