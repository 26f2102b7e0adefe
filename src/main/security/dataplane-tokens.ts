import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Db } from '../store/database.js';

/** The Dataplane a token lets a proxy speak for. */
export interface TokenSubject {
  mesh: string;
  name: string;
}

/** A token as the API lists it: never the token itself, which is shown once, when issued. */
export interface IssuedToken extends TokenSubject {
  /** ISO 8601. */
  issuedAt: string;
}

/** Why a presented token was refused; the message says which Dataplane and what to do. */
export type TokenCheck = { valid: true } | { valid: false; reason: string };

type Listener = (subject: TokenSubject) => void;

/** 32 random bytes: guessing one is out of reach, so a fast hash is enough to store it. */
const TOKEN_BYTES = 32;

/**
 * Per-Dataplane tokens (issue 7): issued by the app, one per Dataplane, kept only as a SHA-256
 * hash in SQLite so that the token itself exists only where the user put it (the proxy's
 * bootstrap). Issuing again replaces the previous token. Listeners hear of every issue and revoke,
 * so that the ADS auth callback can close a stream whose token no longer holds.
 */
export class DataplaneTokens {
  readonly #upsert: Database.Statement<[string, string, string, string]>;
  readonly #delete: Database.Statement<[string, string]>;
  readonly #hashOf: Database.Statement<[string, string], { token_hash: string }>;
  readonly #list: Database.Statement<[], { mesh: string; name: string; issued_at: string }>;
  readonly #listeners = new Set<Listener>();

  constructor(db: Db) {
    this.#upsert = db.prepare(
      `INSERT INTO dataplane_tokens (mesh, name, token_hash, issued_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (mesh, name) DO UPDATE SET token_hash = excluded.token_hash, issued_at = excluded.issued_at`,
    );
    this.#delete = db.prepare('DELETE FROM dataplane_tokens WHERE mesh = ? AND name = ?');
    this.#hashOf = db.prepare('SELECT token_hash FROM dataplane_tokens WHERE mesh = ? AND name = ?');
    this.#list = db.prepare('SELECT mesh, name, issued_at FROM dataplane_tokens ORDER BY mesh, name');
  }

  /** A new random token for the Dataplane, replacing any previous one. The caller shows it once. */
  issue(subject: TokenSubject): IssuedToken & { token: string } {
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const issuedAt = new Date().toISOString();
    this.#upsert.run(subject.mesh, subject.name, hash(token), issuedAt);
    this.#notify(subject);
    return { mesh: subject.mesh, name: subject.name, issuedAt, token };
  }

  /** Forgets the Dataplane's token; false when it had none. */
  revoke(subject: TokenSubject): boolean {
    const revoked = this.#delete.run(subject.mesh, subject.name).changes > 0;
    if (revoked) this.#notify(subject);
    return revoked;
  }

  list(): IssuedToken[] {
    return this.#list.all().map((row) => ({ mesh: row.mesh, name: row.name, issuedAt: row.issued_at }));
  }

  check(subject: TokenSubject, presented: unknown): TokenCheck {
    const dataplane = `Dataplane "${subject.name}" in mesh "${subject.mesh}"`;
    const stored = this.#hashOf.get(subject.mesh, subject.name)?.token_hash;
    if (stored === undefined) {
      return { valid: false, reason: `no token is issued for ${dataplane}: issue one with POST /meshes/${subject.mesh}/dataplanes/${subject.name}/token` };
    }
    if (presented === undefined) return { valid: false, reason: `it sent no token, and ${dataplane} requires one` };
    if (typeof presented !== 'string') return { valid: false, reason: `its token must be a string, got ${typeName(presented)}` };
    const matches = timingSafeEqual(Buffer.from(hash(presented), 'hex'), Buffer.from(stored, 'hex'));
    return matches ? { valid: true } : { valid: false, reason: `its token is not the one issued for ${dataplane} (revoked, replaced or mistyped)` };
  }

  /** Called after every issue and revoke. Returns the unsubscribe function. */
  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #notify(subject: TokenSubject): void {
    for (const listener of this.#listeners) listener(subject);
  }
}

function hash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}
