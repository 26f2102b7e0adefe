import type { ApiErrorBody, InvalidParameter } from '../../shared/api-types.js';
import type { Violation } from '../../shared/resources.js';
import { ValidationError } from '../resources/validation-error.js';
import {
  asStorageFault,
  BrokenRowError,
  ResourceAlreadyExistsError,
  ResourceConflictError,
  ResourceNotFoundError,
  ResourcePreconditionError,
  StorageFaultError,
  type StorageFaultKind,
} from '../store/errors.js';

/** Kuma's detail for a resource that is not there (pkg/core/rest/errors/error_handler.go). */
export const NOT_FOUND_DETAIL = 'Not found';
/** Kuma's detail for a body whose fields break its rules; the fields are in `invalid_parameters`. */
export const INVALID_RESOURCE_DETAIL = 'Resource is not valid';

/** An error the API answers with its own status; anything else is a 500 whose details are logged, not sent. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    detail: string,
    readonly causes: Violation[] = [],
    /** Sent as `Retry-After`: the request may succeed as it is, later. */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
  }
}

/**
 * Seconds a client is told to wait when another process holds the database: most such locks are a
 * backup's or a script's short transaction, so a retry a second later usually lands.
 */
const LOCKED_RETRY_AFTER_SECONDS = 1;

/** Status and title per storage fault: the cause reaches the client, not only the log. */
const STORAGE_FAULT_ANSWERS: Record<StorageFaultKind, { status: number; title: string }> = {
  // 507 Insufficient Storage (RFC 4918): the request is fine, the server cannot store it.
  'disk-full': { status: 507, title: 'Disk full' },
  locked: { status: 503, title: 'Database locked' },
  corrupt: { status: 500, title: 'Database corrupted' },
  'read-only': { status: 503, title: 'Database read-only' },
  'disk-error': { status: 503, title: 'Disk error' },
  'too-big': { status: 413, title: 'Too large to store' },
  'out-of-memory': { status: 503, title: 'Out of memory' },
  sqlite: { status: 500, title: 'Database error' },
};

/**
 * The error an API call fails with. Kuma's endpoints pass `kumaTitle`, what the endpoint was doing as
 * Kuma titles it (`Could not retrieve a resource`, `Failed to retrieve Mesh`, …), and get Kuma's details
 * (`Not found`, `Resource is not valid`), which kumactl prints; meshdesk's own routes name the resource.
 * An ApiError keeps its own title.
 */
export function toApiError(error: unknown, kumaTitle?: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ValidationError) {
    return new ApiError(400, kumaTitle ?? 'Could not process a resource', kumaTitle ? INVALID_RESOURCE_DETAIL : error.title, error.violations);
  }
  if (error instanceof ResourceNotFoundError) {
    return kumaTitle ? new ApiError(404, kumaTitle, NOT_FOUND_DETAIL) : new ApiError(404, 'Could not find a resource', error.message);
  }
  if (error instanceof ResourceAlreadyExistsError) return new ApiError(409, 'Conflict', error.message);
  if (error instanceof ResourceConflictError) {
    return new ApiError(409, 'Conflict', error.message, [
      { field: 'version', message: `stored version is ${error.actualVersion}` },
    ]);
  }
  if (error instanceof ResourcePreconditionError) return new ApiError(409, 'Conflict', error.message);
  if (error instanceof BrokenRowError) return new ApiError(500, 'Stored resource is unusable', error.message);
  const fault = asStorageFault(error);
  if (fault instanceof StorageFaultError) {
    const { status, title } = STORAGE_FAULT_ANSWERS[fault.kind];
    return new ApiError(status, title, fault.message, [], fault.kind === 'locked' ? LOCKED_RETRY_AFTER_SECONDS : undefined);
  }
  return new ApiError(500, 'Internal server error', 'meshdesk failed to handle the request; see its log for details');
}

/**
 * The one JSON body of every error the API answers: Kuma's `/std-errors` envelope, with the older
 * `details` and `causes` that kumactl falls back to. Lists of fields are left out when empty, as Kuma does.
 */
export function errorBody(error: ApiError): ApiErrorBody {
  const invalidParameters: InvalidParameter[] = error.causes.map(({ field, message }) => ({ field, reason: message }));
  return {
    type: '/std-errors',
    status: error.status,
    title: error.title,
    detail: error.message,
    ...(invalidParameters.length > 0 && { invalid_parameters: invalidParameters }),
    details: error.message,
    ...(error.causes.length > 0 && { causes: error.causes }),
  };
}

/** Runs `step`, answering any failure with Kuma's title for what the endpoint was doing (see toApiError). */
export async function titled<T>(title: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw toApiError(error, title);
  }
}
