import type { Settings } from '../config/settings.js';
import { ApiError } from './api-error.js';
import type { Route } from './router.js';

/**
 * `GET /settings` answers every setting in force keyed by name, in the form a user writes it
 * (`"store.cache.expirationTime": "1s"`); `PUT /settings` takes a partial object of the same shape
 * and applies all of it or none. `GET /settings/schema` describes each setting for the UI.
 */
export function settingsRoutes(settings: Settings): Route[] {
  return [
    { method: 'GET', path: '/settings', handler: () => ({ json: settings.userValues() }) },
    { method: 'GET', path: '/settings/schema', handler: () => ({ json: settings.describe() }) },
    {
      method: 'PUT',
      path: '/settings',
      handler: async ({ body }) => {
        const patch = parseJsonObject(await body());
        settings.update(patch);
        return { json: settings.userValues() };
      },
    },
  ];
}

function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, 'Bad request', `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError(400, 'Bad request', 'the body must be a JSON object keyed by setting name, e.g. {"store.cache.expirationTime": "2s"}');
  }
  return value as Record<string, unknown>;
}
