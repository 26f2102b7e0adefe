import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDatabase } from '../../../test/support/temp-database.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import { DataplaneTokens } from './dataplane-tokens.js';
import { loadOrCreateTokenSigningKey, TOKEN_SIGNING_KEY_FILE } from './token-signing-key.js';
import { tokenTable } from '../store/token-table.js';

const BACKEND = { mesh: 'default', name: 'backend-1' };

const KEY = Buffer.alloc(32, 7);

describe('DataplaneTokens', () => {
  it('gives every Dataplane its own token from the start, the same every time, valid for it only', () => {
    const tokens = new DataplaneTokens(tokenTable(tempDatabase().open()), KEY);
    const token = tokens.tokenFor(BACKEND)!;

    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // HMAC-SHA256, base64url
    expect(tokens.tokenFor(BACKEND)).toBe(token);
    expect(tokens.tokenFor({ mesh: 'default', name: 'web-1' })).not.toBe(token);
    expect(tokens.check(BACKEND, token)).toEqual({ valid: true });
    expect(tokens.check({ mesh: 'default', name: 'web-1' }, token)).toMatchObject({ valid: false });
    expect(tokens.check({ mesh: 'other', name: 'backend-1' }, token)).toMatchObject({ valid: false });
    // Another data directory's key makes other tokens.
    expect(new DataplaneTokens(tokenTable(tempDatabase().open()), Buffer.alloc(32, 8)).tokenFor(BACKEND)).not.toBe(token);
    expect(tokens.list()).toEqual([]);
  });

  it('says why a token is refused', () => {
    const tokens = new DataplaneTokens(tokenTable(tempDatabase().open()), KEY);
    expect(tokens.check(BACKEND, undefined)).toMatchObject({ reason: 'it sent no token, and Dataplane "backend-1" in mesh "default" requires one' });
    expect(tokens.check(BACKEND, { nested: true })).toMatchObject({ reason: 'its token must be a string, got object' });
    expect(tokens.check(BACKEND, '')).toMatchObject({ reason: expect.stringContaining('is not the one issued') });
    tokens.revoke(BACKEND);
    expect(tokens.check(BACKEND, 'anything')).toEqual({
      valid: false,
      reason: 'the token of Dataplane "backend-1" in mesh "default" is revoked: issue a new one with POST /meshes/default/dataplanes/backend-1/token',
    });
  });

  it('keeps only a hash of an issued token: it is nowhere in the database file, yet checks valid and is given again after a restart', () => {
    const database = tempDatabase();
    const db = database.open();
    const { token } = new DataplaneTokens(tokenTable(db), KEY).issue(BACKEND);
    db.close();

    for (const file of ['meshdesk.db', 'meshdesk.db-wal'].map((name) => join(database.dir, name)).filter(existsSync)) {
      expect(readFileSync(file).includes(Buffer.from(token))).toBe(false);
    }
    const reopened = new DataplaneTokens(tokenTable(database.open()), KEY);
    expect(reopened.check(BACKEND, token)).toEqual({ valid: true });
    expect(reopened.tokenFor(BACKEND)).toBe(token);
  });

  it('issuing replaces the token; revoking leaves none until the next issue; listeners hear every change', () => {
    const tokens = new DataplaneTokens(tokenTable(tempDatabase().open()), KEY);
    const heard: string[] = [];
    tokens.onChange(({ mesh, name }) => heard.push(`${mesh}/${name}`));
    const initial = tokens.tokenFor(BACKEND)!;
    const first = tokens.issue(BACKEND).token;
    const second = tokens.issue(BACKEND).token; // within the same millisecond, still another token

    expect(new Set([initial, first, second]).size).toBe(3);
    expect(tokens.check(BACKEND, initial)).toMatchObject({ valid: false });
    expect(tokens.check(BACKEND, first)).toMatchObject({ valid: false });
    expect(tokens.check(BACKEND, second)).toEqual({ valid: true });
    expect(tokens.tokenFor(BACKEND)).toBe(second);
    expect(tokens.list()).toEqual([{ ...BACKEND, issuedAt: expect.any(String), revoked: false }]);

    expect(tokens.revoke(BACKEND)).toBe(true);
    expect(tokens.revoke(BACKEND)).toBe(false);
    expect(tokens.check(BACKEND, second)).toMatchObject({ valid: false });
    expect(tokens.tokenFor(BACKEND)).toBeUndefined();
    expect(tokens.list()).toEqual([{ ...BACKEND, issuedAt: expect.any(String), revoked: true }]);
    expect(heard).toEqual(['default/backend-1', 'default/backend-1', 'default/backend-1']);
  });
});

describe('the token signing key', () => {
  it('is made once, readable by its owner only, and read again after', () => {
    const dir = tempDir();
    const key = loadOrCreateTokenSigningKey(dir);

    expect(key).toHaveLength(32);
    expect(statSync(join(dir, TOKEN_SIGNING_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(loadOrCreateTokenSigningKey(dir)).toEqual(key);
  });

  it('refuses a damaged key file, naming it and what to do', () => {
    const dir = tempDir();
    writeFileSync(join(dir, TOKEN_SIGNING_KEY_FILE), 'short\n');

    expect(() => loadOrCreateTokenSigningKey(dir)).toThrow(/dataplane-token-signing\.key does not hold a 32-byte base64 key: delete it/);
  });
});
