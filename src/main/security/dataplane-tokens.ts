import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { TokenTable } from '../store/token-table.js';

/** The Dataplane a token lets a proxy speak for. */
export interface TokenSubject {
  mesh: string;
  name: string;
}

/** A token issued or revoked by hand, as the API lists it: never the token itself. */
export interface IssuedToken extends TokenSubject {
  /** ISO 8601: when it was issued, or revoked. */
  issuedAt: string;
  /** Revoked: no token opens the Dataplane until a new one is issued. */
  revoked: boolean;
}

/** Why a presented token was refused; the message says which Dataplane and what to do. */
export type TokenCheck = { valid: true } | { valid: false; reason: string };

type Listener = (subject: TokenSubject) => void;

/** A revoked Dataplane's row: no token hashes to the empty string. */
const REVOKED = '';

/**
 * Per-Dataplane tokens (issue 7, issue 27). Each Dataplane has a token from the start: an HMAC of
 * its mesh and name under the data directory's signing key (security/token-signing-key.ts), so that
 * the bootstrap routes can put it into every bootstrap they give without storing anything, and
 * fetching a bootstrap twice never changes it. Issuing one by hand (POST …/token) replaces it with
 * the HMAC of a new issue time, and revoking leaves none; either is a row in SQLite holding the new
 * token's SHA-256 hash only. Listeners hear of every issue and revoke, so that the ADS auth
 * callback can close a stream whose token no longer holds.
 */
export class DataplaneTokens {
  readonly #signingKey: Buffer;
  readonly #table: TokenTable;
  readonly #listeners = new Set<Listener>();

  constructor(table: TokenTable, signingKey: Buffer) {
    this.#signingKey = signingKey;
    this.#table = table;
  }

  /**
   * The Dataplane's token now, to put into its bootstrap; undefined when it was revoked, or issued
   * by a meshdesk before tokens were derived (only its hash is known): a new one must be issued.
   */
  tokenFor(subject: TokenSubject): string | undefined {
    const row = this.#table.row(subject.mesh, subject.name);
    if (!row) return this.#derive(subject, '');
    const token = this.#derive(subject, row.issuedAt);
    return row.tokenHash === hash(token) ? token : undefined;
  }

  /** A new token for the Dataplane, replacing its previous one. */
  issue(subject: TokenSubject): { mesh: string; name: string; issuedAt: string; token: string } {
    const previous = this.#table.row(subject.mesh, subject.name)?.issuedAt;
    // Two issues within one millisecond must still give two tokens.
    const issuedAt = new Date(Math.max(Date.now(), previous === undefined ? 0 : Date.parse(previous) + 1)).toISOString();
    const token = this.#derive(subject, issuedAt);
    this.#table.put({ mesh: subject.mesh, name: subject.name, tokenHash: hash(token), issuedAt });
    this.#notify(subject);
    return { mesh: subject.mesh, name: subject.name, issuedAt, token };
  }

  /** Leaves the Dataplane without a token until one is issued; false when it was revoked already. */
  revoke(subject: TokenSubject): boolean {
    if (this.#table.row(subject.mesh, subject.name)?.tokenHash === REVOKED) return false;
    this.#table.put({ mesh: subject.mesh, name: subject.name, tokenHash: REVOKED, issuedAt: new Date().toISOString() });
    this.#notify(subject);
    return true;
  }

  /** The Dataplanes whose token was issued or revoked by hand; every other one has its first token. */
  list(): IssuedToken[] {
    return this.#table.all().map((row) => ({ mesh: row.mesh, name: row.name, issuedAt: row.issuedAt, revoked: row.tokenHash === REVOKED }));
  }

  check(subject: TokenSubject, presented: unknown): TokenCheck {
    const dataplane = `Dataplane "${subject.name}" in mesh "${subject.mesh}"`;
    const row = this.#table.row(subject.mesh, subject.name);
    if (row?.tokenHash === REVOKED) {
      return { valid: false, reason: `the token of ${dataplane} is revoked: issue a new one with POST /meshes/${subject.mesh}/dataplanes/${subject.name}/token` };
    }
    if (presented === undefined) return { valid: false, reason: `it sent no token, and ${dataplane} requires one` };
    if (typeof presented !== 'string') return { valid: false, reason: `its token must be a string, got ${typeName(presented)}` };
    const expected = row?.tokenHash ?? hash(this.#derive(subject, ''));
    const matches = timingSafeEqual(Buffer.from(hash(presented), 'hex'), Buffer.from(expected, 'hex'));
    return matches ? { valid: true } : { valid: false, reason: `its token is not the one issued for ${dataplane} (replaced, or another Dataplane's, or mistyped)` };
  }

  /** Called after every issue and revoke. Returns the unsubscribe function. */
  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** base64url of HMAC-SHA256(key, mesh NUL name NUL issue time): 43 characters, unguessable without the key. */
  #derive(subject: TokenSubject, issuedAt: string): string {
    return createHmac('sha256', this.#signingKey).update(`${subject.mesh}\0${subject.name}\0${issuedAt}`, 'utf8').digest('base64url');
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
