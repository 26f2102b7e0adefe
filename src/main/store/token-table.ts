import type { Db } from './database.js';

/** A Dataplane's token as stored: the SHA-256 hash of the token issued by hand (empty when revoked) and when. */
export interface TokenRow {
  mesh: string;
  name: string;
  tokenHash: string;
  issuedAt: string;
}

/** The `dataplane_tokens` table, as DataplaneTokens reads and writes it. */
export interface TokenTable {
  row(mesh: string, name: string): TokenRow | undefined;
  /** Ordered by mesh, then name. */
  all(): TokenRow[];
  put(row: TokenRow): void;
}

export function tokenTable(db: Db): TokenTable {
  const upsert = db.prepare<[string, string, string, string]>(
    `INSERT INTO dataplane_tokens (mesh, name, token_hash, issued_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (mesh, name) DO UPDATE SET token_hash = excluded.token_hash, issued_at = excluded.issued_at`,
  );
  const columns = 'mesh, name, token_hash AS tokenHash, issued_at AS issuedAt';
  const one = db.prepare<[string, string], TokenRow>(`SELECT ${columns} FROM dataplane_tokens WHERE mesh = ? AND name = ?`);
  const every = db.prepare<[], TokenRow>(`SELECT ${columns} FROM dataplane_tokens ORDER BY mesh, name`);
  return {
    row: (mesh, name) => one.get(mesh, name),
    all: () => every.all(),
    put: ({ mesh, name, tokenHash, issuedAt }) => void upsert.run(mesh, name, tokenHash, issuedAt),
  };
}
