import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDatabase } from '../../../test/support/temp-database.js';
import { DataplaneTokens } from './dataplane-tokens.js';

const BACKEND = { mesh: 'default', name: 'backend-1' };

describe('DataplaneTokens', () => {
  it('issues a random token that checks valid for its Dataplane only', () => {
    const tokens = new DataplaneTokens(tempDatabase().open());
    const { token } = tokens.issue(BACKEND);

    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url
    expect(tokens.issue({ mesh: 'default', name: 'web-1' }).token).not.toBe(token);
    expect(tokens.check(BACKEND, token)).toEqual({ valid: true });
    expect(tokens.check({ mesh: 'default', name: 'web-1' }, token)).toMatchObject({ valid: false });
    expect(tokens.check({ mesh: 'other', name: 'backend-1' }, token)).toMatchObject({ valid: false });
  });

  it('says why a token is refused', () => {
    const tokens = new DataplaneTokens(tempDatabase().open());
    expect(tokens.check(BACKEND, 'anything')).toEqual({
      valid: false,
      reason: 'no token is issued for Dataplane "backend-1" in mesh "default": issue one with POST /meshes/default/dataplanes/backend-1/token',
    });
    tokens.issue(BACKEND);
    expect(tokens.check(BACKEND, undefined)).toMatchObject({ reason: 'it sent no token, and Dataplane "backend-1" in mesh "default" requires one' });
    expect(tokens.check(BACKEND, { nested: true })).toMatchObject({ reason: 'its token must be a string, got object' });
    expect(tokens.check(BACKEND, '')).toMatchObject({ reason: expect.stringContaining('is not the one issued') });
  });

  it('keeps only a hash: the token is nowhere in the database file, yet checks valid after a restart', () => {
    const database = tempDatabase();
    const db = database.open();
    const { token } = new DataplaneTokens(db).issue(BACKEND);
    db.close();

    for (const file of ['meshdesk.db', 'meshdesk.db-wal'].map((name) => join(database.dir, name)).filter(existsSync)) {
      expect(readFileSync(file).includes(Buffer.from(token))).toBe(false);
    }
    expect(new DataplaneTokens(database.open()).check(BACKEND, token)).toEqual({ valid: true });
  });

  it('issuing again replaces the token; revoking forgets it; listeners hear both', () => {
    const tokens = new DataplaneTokens(tempDatabase().open());
    const heard: string[] = [];
    tokens.onChange(({ mesh, name }) => heard.push(`${mesh}/${name}`));
    const first = tokens.issue(BACKEND).token;
    const second = tokens.issue(BACKEND).token;

    expect(tokens.check(BACKEND, first)).toMatchObject({ valid: false });
    expect(tokens.check(BACKEND, second)).toEqual({ valid: true });
    expect(tokens.list()).toEqual([{ ...BACKEND, issuedAt: expect.any(String) }]);

    expect(tokens.revoke(BACKEND)).toBe(true);
    expect(tokens.revoke(BACKEND)).toBe(false);
    expect(tokens.check(BACKEND, second)).toMatchObject({ valid: false });
    expect(tokens.list()).toEqual([]);
    expect(heard).toEqual(['default/backend-1', 'default/backend-1', 'default/backend-1']);
  });
});
