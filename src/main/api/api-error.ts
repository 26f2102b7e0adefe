import type { Violation } from '../../shared/resources.js';
import { ValidationError } from '../resources/validation-error.js';
import {
  ResourceAlreadyExistsError,
  ResourceConflictError,
  ResourceNotFoundError,
  ResourcePreconditionError,
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
  ) {
    super(details);
  }
}

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
  return new ApiError(500, 'Internal server error', 'meshdesk failed to handle the request; see its log for details');
}

export function errorBody(error: ApiError): ApiErrorBody {
  return { title: error.title, details: error.message, causes: error.causes };
}
