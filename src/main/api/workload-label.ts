import { WORKLOAD_LABEL, type ResourceInput } from '../../shared/resources.js';
import { dns1035LabelProblems } from '../resources/dns-1035-label.js';
import { ApiError } from './api-error.js';

/**
 * Kuma's API refuses a universal Dataplane created with a `kuma.io/workload` label that is not a
 * DNS-1035 label (pkg/api-server/resource_endpoints.go createResource), before its manager sees
 * it, as a 400 "Bad Request". Kuma checks creates only: an update keeps whatever label it brings.
 */
export function requireValidWorkloadLabel(input: ResourceInput): void {
  const workload = input.type === 'Dataplane' ? input.labels?.[WORKLOAD_LABEL] : undefined;
  const problems = workload ? dns1035LabelProblems(workload) : [];
  if (problems.length === 0) return;
  throw new ApiError(
    400,
    'Bad Request',
    `bad request: labels["${WORKLOAD_LABEL}"]: must be a valid DNS-1035 label (at most 63 characters, matching regex ` +
      `[a-z]([-a-z0-9]*[a-z0-9])?): ${problems.join('; ')}`,
  );
}
