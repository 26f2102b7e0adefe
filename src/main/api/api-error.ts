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

/** The JSON body of every error the API returns, as Kuma's API shapes it. */
export interface ApiErrorBody {
  title: string;
  details: string;
  causes: Violation[];
}

/** An error the API answers with its own status; anything else is a 500 whose details are logged, not sent. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    details: string,
    readonly causes: Violation[] = [],
    /** Sent as `Retry-After`: the request may succeed as it is, later. */
    readonly retryAfterSeconds?: number,
  ) {
    super(details);
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
};

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ValidationError) {
    return new ApiError(400, 'Could not process a resource', error.title, error.violations);
  }
  if (error instanceof ResourceNotFoundError) return new ApiError(404, 'Could not find a resource', error.message);
  if (error instanceof ResourceAlreadyExistsError) return new ApiError(409, 'Resource already exists', error.message);
  if (error instanceof ResourceConflictError) {
    return new ApiError(409, 'Conflict', error.message, [
      { field: 'version', message: `stored version is ${error.actualVersion}` },
    ]);
  }
  if (error instanceof ResourcePreconditionError) return new ApiError(409, 'Could not process a resource', error.message);
  if (error instanceof BrokenRowError) return new ApiError(500, 'Stored resource is unusable', error.message);
  const fault = asStorageFault(error);
  if (fault instanceof StorageFaultError) {
    const { status, title } = STORAGE_FAULT_ANSWERS[fault.kind];
    return new ApiError(status, title, fault.message, [], fault.kind === 'locked' ? LOCKED_RETRY_AFTER_SECONDS : undefined);
  }
  return new ApiError(500, 'Internal server error', 'meshdesk failed to handle the request; see its log for details');
}

export function errorBody(error: ApiError): ApiErrorBody {
  return { title: error.title, details: error.message, causes: error.causes };
}
