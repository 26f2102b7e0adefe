import { validateResource } from '../validate.js';
import { ValidationError } from '../validation-error.js';

/** The violations validateResource reports for `input`, none when it is valid; any other error is thrown. */
export function violationsOf(input: unknown): { field: string; message: string }[] {
  try {
    validateResource(input);
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.violations;
  }
}
