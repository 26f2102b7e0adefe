// Kuma's validation goldens (../shared/kuma-cases/) as cases meshdesk's validation is compared with: the
// Dataplane validator's table, and the Mesh and Dataplane bodies of the API server's PUT cases.
// Shared by test/kuma/validation.kuma.test.ts and scripts/conformance/validation.ts, so both count alike.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KUMA_CASES_DIR } from '../../support/kuma-cases.js';
import type { ResourceType, Violation } from '../../../src/shared/resources.js';
import { parseResourceText } from '../../../src/main/resources/parse.js';
import { ValidationError } from '../../../src/main/resources/validation-error.js';
import { validateResource, type ExpectedResource } from '../../../src/main/resources/validate.js';
import { ApiError } from '../../../src/main/api/api-error.js';
import { requireValidWorkloadLabel } from '../../../src/main/api/workload-label.js';


export interface ValidationCase {
  /** `<file>: <case name>`, unique, as known-differences.ts names cases. */
  id: string;
  /** YAML or JSON text, as a user would send it. */
  text: string;
  /** What the URL says, for API cases. */
  expected: ExpectedResource;
  accept: boolean;
  /** Kuma's violations, when Kuma names them by field (undefined: Kuma answers without fields). */
  violations?: Violation[];
}

export interface CaseResult {
  accepted: boolean;
  violations: Violation[];
  /** The same decision and, where Kuma names them, the same violations in the same order. */
  matches: boolean;
}

export function validationCases(): ValidationCase[] {
  return [...validatorTableCases(), ...apiCases()];
}

interface TableEntry {
  name: string;
  kind: 'pass' | 'fail';
  dataplane: string;
  expected?: Violation[];
}

const VALIDATOR_TABLE = 'validation/dataplane_validator_cases.json';

/** Kuma's test reads some entries as a bare spec: give those the meta a stored Dataplane has. */
const TABLE_META = 'type: Dataplane\nname: dp-1\nmesh: default\n';

function validatorTableCases(): ValidationCase[] {
  const entries = JSON.parse(readFileSync(join(KUMA_CASES_DIR, VALIDATOR_TABLE), 'utf8')) as TableEntry[];
  const seen = new Map<string, number>();
  return entries.map((entry) => {
    // The table repeats a few names; number the repeats so that every case has its own id.
    const count = (seen.get(entry.name) ?? 0) + 1;
    seen.set(entry.name, count);
    const name = count === 1 ? entry.name : `${entry.name} #${count}`;
    const text = /^type:/m.test(entry.dataplane) ? entry.dataplane : TABLE_META + entry.dataplane;
    return {
      id: `${VALIDATOR_TABLE}: ${name}`,
      text,
      expected: {},
      accept: entry.kind === 'pass',
      violations: entry.kind === 'fail' ? entry.expected : [],
    };
  });
}

interface KumaErrorBody {
  status?: number;
  invalid_parameters?: { field: string; reason: string }[];
}

/** The PUTs of `*.input.yaml` whose URL is a Mesh or a Dataplane, with their request and golden answer. */
function apiCases(): ValidationCase[] {
  const folder = join(KUMA_CASES_DIR, 'api');
  const cases: ValidationCase[] = [];
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.input.yaml')).sort()) {
    const base = file.slice(0, -'.input.yaml'.length);
    const requests = readFileSync(join(folder, file), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('#/'))
      .map((line) => line.slice(1).split(' '));
    requests.forEach(([path, status, method], index) => {
      const request = join(folder, `${base}_${String(index).padStart(2, '0')}.request.json`);
      const expected = expectedFromPath(path!);
      if (method !== 'method=PUT' || !existsSync(request) || expected === undefined) return;
      const golden = JSON.parse(
        readFileSync(join(folder, `${base}_${String(index).padStart(2, '0')}.golden.json`), 'utf8'),
      ) as KumaErrorBody;
      const accept = status!.startsWith('2');
      cases.push({
        id: `api/${base}_${String(index).padStart(2, '0')}: PUT ${path} ${status}`,
        text: readFileSync(request, 'utf8'),
        expected,
        accept,
        violations: accept
          ? []
          : golden.invalid_parameters?.map(({ field, reason }) => ({ field, message: reason })),
      });
    });
  }
  // The bodies `kumactl apply` (≥ 2.13) PUTs, with `kri` and zero times; Kuma stores them.
  for (const file of readdirSync(folder).filter((name) => /^kumactl_apply_.*\.request\.json$/.test(name)).sort()) {
    const text = readFileSync(join(folder, file), 'utf8');
    const body = JSON.parse(text) as { type: ResourceType; mesh?: string; name: string };
    cases.push({
      id: `api/${file}: kumactl apply`,
      text,
      expected: { type: body.type, mesh: body.mesh, name: body.name },
      accept: true,
      violations: [],
    });
  }
  return cases;
}

function expectedFromPath(path: string): ExpectedResource | undefined {
  const dataplane = /^\/meshes\/([^/]+)\/dataplanes\/([^/]+)$/.exec(path);
  if (dataplane) return { type: 'Dataplane', mesh: dataplane[1], name: dataplane[2] };
  const mesh = /^\/meshes\/([^/]+)$/.exec(path);
  if (mesh) return { type: 'Mesh', name: mesh[1] };
  return undefined;
}

/**
 * Reads and validates the case's text as the API does on a create (parse, validate against the URL,
 * then the API's own label rule, which Kuma answers without fields).
 */
export function runValidationCase(testCase: ValidationCase): CaseResult {
  let violations: Violation[] = [];
  let refusedWithoutFields = false;
  try {
    requireValidWorkloadLabel(validateResource(parseResourceText(testCase.text), testCase.expected));
  } catch (error) {
    if (error instanceof ApiError) refusedWithoutFields = true;
    else if (error instanceof ValidationError) violations = error.violations;
    else throw error;
  }
  const accepted = violations.length === 0 && !refusedWithoutFields;
  const sameViolations =
    testCase.violations === undefined || JSON.stringify(violations) === JSON.stringify(testCase.violations);
  return { accepted, violations, matches: accepted === testCase.accept && sameViolations };
}
