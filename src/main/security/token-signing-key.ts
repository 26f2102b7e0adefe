import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The data directory's file holding the key Dataplane tokens are derived with (base64, 0600). */
export const TOKEN_SIGNING_KEY_FILE = 'dataplane-token-signing.key';

const KEY_BYTES = 32;

/**
 * The key every Dataplane token is an HMAC under, as Kuma keeps a signing key for its dataplane
 * tokens: created once (exclusively, so two starts cannot make two), then read at every start.
 * Whoever reads it can make any token; it is as private as the mesh CAs' keys beside it.
 */
export function loadOrCreateTokenSigningKey(dataDir: string): Buffer {
  const file = join(dataDir, TOKEN_SIGNING_KEY_FILE);
  try {
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== KEY_BYTES) {
    throw new Error(`${file} does not hold a ${KEY_BYTES}-byte base64 key: delete it to have a new one made (every Dataplane token then changes)`);
  }
  return key;
}
