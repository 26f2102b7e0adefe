import type { ResourceType } from '../../../shared/resources.js';
import { goJsonSyntaxError } from '../../resources/go-json-syntax.js';
import { parseResourceText } from '../../resources/parse.js';
import { ValidationError } from '../../resources/validation-error.js';
import { ApiError } from '../api-error.js';

/**
 * The body as plain values. Text that is not JSON or YAML, or meta fields of the wrong JSON type, are
 * Kuma's 400 `Bad Request` / `invalid <Type> object: "…"`. A body meant as JSON (it opens with `{` or
 * `[`) that neither reads gets Go's encoding/json words, as Kuma reads every body as JSON; YAML's
 * syntax errors keep their line and column as fields, so that an editor can point at them.
 */
export function parseBody(type: ResourceType | 'policy', text: string): unknown {
  let body: unknown;
  try {
    body = parseResourceText(text);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const jsonError = /^\s*[[{]/.test(text) ? goJsonSyntaxError(text) : undefined;
    if (jsonError !== undefined) throw new ApiError(400, 'Bad Request', `invalid ${type} object: ${JSON.stringify(jsonError)}`);
    const reason = error.violations.map((violation) => violation.message).join('; ');
    throw new ApiError(400, 'Bad Request', `invalid ${type} object: ${JSON.stringify(reason)}`, error.violations);
  }
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    for (const field of ['type', 'mesh', 'name'] as const) {
      const value = (body as Record<string, unknown>)[field];
      if (value === undefined || value === null || typeof value === 'string') continue;
      // Go's encoding/json message, as Kuma passes it on.
      const goType = typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : Array.isArray(value) ? 'array' : 'object';
      const detail = `json: cannot unmarshal ${goType} into Go struct field ResourceMeta.${field} of type string`;
      throw new ApiError(400, 'Bad Request', `invalid ${type} object: ${JSON.stringify(detail)}`);
    }
  }
  return body;
}
