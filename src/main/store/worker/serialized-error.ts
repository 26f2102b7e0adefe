import { ValidationError } from '../../resources/validation-error.js';
import {
  BrokenRowError,
  DatabaseInUseError,
  ResourceAlreadyExistsError,
  ResourceConflictError,
  ResourceNotFoundError,
  ResourcePreconditionError,
  StorageFaultError,
} from '../errors.js';

/** An error as it crosses between threads: its class by name, its own fields (key, kind, violations…) and its cause. */
export interface SerializedError {
  name: string;
  message: string;
  stack: string | undefined;
  fields: Record<string, unknown>;
  cause?: SerializedError;
}

/**
 * The classes callers tell apart (the API maps each to its HTTP status): an error of one of them
 * arrives as that class. Any other arrives as an Error with its name, message and fields.
 */
const KNOWN = new Map<string, { prototype: Error }>(
  [
    ResourceNotFoundError,
    ResourceAlreadyExistsError,
    ResourceConflictError,
    ResourcePreconditionError,
    BrokenRowError,
    StorageFaultError,
    DatabaseInUseError,
    ValidationError,
  ].map((errorClass) => [errorClass.name, errorClass]),
);

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), stack: undefined, fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(error)) {
    if (field !== 'name' && field !== 'message' && field !== 'stack' && field !== 'cause') fields[field] = value;
  }
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    fields,
    ...(error.cause !== undefined && { cause: serializeError(error.cause) }),
  };
}

/** The error again, of its class when it is a KNOWN one, without running its constructor (the message is already made). */
export function deserializeError(serialized: SerializedError): Error {
  const error = Object.create(KNOWN.get(serialized.name)?.prototype ?? Error.prototype) as Error;
  const own = (value: unknown) => ({ value, writable: true, configurable: true });
  Object.defineProperties(error, {
    name: { ...own(serialized.name), enumerable: true },
    message: own(serialized.message),
    stack: own(serialized.stack),
    ...(serialized.cause && { cause: own(deserializeError(serialized.cause)) }),
  });
  Object.assign(error, serialized.fields);
  return error;
}
