import type { Violation } from '../../../shared/resources.js';
import { ValidationError } from '../../resources/validation-error.js';
import { ApiError } from '../api-error.js';

/**
 * An error thrown in a body worker, as a message can carry it: structured cloning keeps an Error's
 * message but not its class or fields, and the API's answer depends on both (status, title, the
 * violations by field path that clients and Kuma's tests compare).
 */
export type CrossingError =
  | { kind: 'api'; status: number; title: string; detail: string; causes: Violation[]; retryAfterSeconds?: number }
  | { kind: 'validation'; title: string; violations: Violation[] }
  | { kind: 'other'; message: string; stack?: string };

export function toCrossingError(error: unknown): CrossingError {
  if (error instanceof ApiError) {
    return {
      kind: 'api',
      status: error.status,
      title: error.title,
      detail: error.message,
      causes: error.causes,
      ...(error.retryAfterSeconds !== undefined && { retryAfterSeconds: error.retryAfterSeconds }),
    };
  }
  if (error instanceof ValidationError) return { kind: 'validation', title: error.title, violations: error.violations };
  if (error instanceof Error) return { kind: 'other', message: error.message, ...(error.stack !== undefined && { stack: error.stack }) };
  return { kind: 'other', message: String(error) };
}

/** The error as it was thrown, of its own class: the caller answers it as if it had been thrown here. */
export function fromCrossingError(crossing: CrossingError): Error {
  switch (crossing.kind) {
    case 'api':
      return new ApiError(crossing.status, crossing.title, crossing.detail, crossing.causes, crossing.retryAfterSeconds);
    case 'validation':
      return new ValidationError(crossing.title, crossing.violations);
    case 'other': {
      // A bug in a reader: a 500 whose cause, with the worker's stack, goes to the log.
      const error = new Error(`reading a request body in a worker failed: ${crossing.message}`);
      if (crossing.stack !== undefined) error.stack = `${error.message}\n    in the worker: ${crossing.stack}`;
      return error;
    }
  }
}
