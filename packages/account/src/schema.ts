/**
 * The account tables, one SQL statement each, shared by every SQL backend: SQLite on node-server and D1 at the
 * edge (whose `migrations/0001_accounts.sql` a test keeps equal to this). Idempotent.
 */
export const ACCOUNT_SCHEMA: readonly string[] = [
  'CREATE TABLE IF NOT EXISTS accounts (did TEXT PRIMARY KEY, created TEXT NOT NULL, wallet TEXT, wallet_updated TEXT, publish_interest TEXT) WITHOUT ROWID',
  'CREATE TABLE IF NOT EXISTS saved (did TEXT NOT NULL REFERENCES accounts(did), model_key TEXT NOT NULL, model TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (did, model_key)) WITHOUT ROWID',
  'CREATE INDEX IF NOT EXISTS saved_order ON saved (did, position)',
  'CREATE TABLE IF NOT EXISTS requests (id INTEGER PRIMARY KEY, did TEXT NOT NULL REFERENCES accounts(did), model_key TEXT NOT NULL, model TEXT NOT NULL, created TEXT NOT NULL, UNIQUE (did, model_key))',
  'CREATE INDEX IF NOT EXISTS requests_model ON requests (model_key)',
];

/**
 * The account statements, written once (issue 13) for every SQL backend: SQLite on node-server (better-sqlite3) and
 * D1 at the edge. Numbered parameters (`?1`) so a value used twice is bound once; bounds are WHERE clauses on
 * `INSERT … SELECT` and the UNIQUE constraints pick the winner, because D1 has no interactive transactions.
 */
export const ACCOUNT_SQL = {
  account: 'SELECT did, created, wallet, publish_interest FROM accounts WHERE did = ?1',
  insertAccount: 'INSERT INTO accounts (did, created) VALUES (?1, ?2) ON CONFLICT (did) DO NOTHING',
  saved: 'SELECT model FROM saved WHERE did = ?1 ORDER BY position',
  savedHas: 'SELECT 1 AS n FROM saved WHERE did = ?1 AND model_key = ?2',
  savedClear: 'DELETE FROM saved WHERE did = ?1',
  savedCount: 'SELECT COUNT(*) AS n, MAX(position) AS top FROM saved WHERE did = ?1',
  savedInsert: 'INSERT INTO saved (did, model_key, model, position) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (did, model_key) DO NOTHING',
  // The whole list in one statement: [[key, id], …] as JSON, positions from the array index.
  savedInsertAll:
    "INSERT INTO saved (did, model_key, model, position) SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), CAST(key AS INTEGER) FROM json_each(?2) WHERE true ON CONFLICT (did, model_key) DO NOTHING",
  // Check the bound and append in one statement, so concurrent adds cannot pass the bound.
  savedAdd:
    'INSERT INTO saved (did, model_key, model, position) SELECT ?1, ?2, ?3, COALESCE((SELECT MAX(position) FROM saved WHERE did = ?1), -1) + 1 WHERE (SELECT COUNT(*) FROM saved WHERE did = ?1) < ?4 ON CONFLICT (did, model_key) DO NOTHING',
  savedDelete: 'DELETE FROM saved WHERE did = ?1 AND model_key = ?2',
  requestCount: 'SELECT COUNT(*) AS n FROM requests WHERE did = ?1',
  // D1 has no interactive transactions: the bound is a WHERE on the INSERT … SELECT, the UNIQUE constraint picks the winner.
  requestInsert:
    'INSERT INTO requests (did, model_key, model, created) SELECT ?1, ?2, ?3, ?4 WHERE (SELECT COUNT(*) FROM requests WHERE did = ?1) < ?5 ON CONFLICT (did, model_key) DO NOTHING RETURNING id',
  requestHas: 'SELECT 1 AS n FROM requests WHERE did = ?1 AND model_key = ?2',
  requested: 'SELECT model FROM requests WHERE did = ?1 ORDER BY id',
  setWallet: 'UPDATE accounts SET wallet = ?1, wallet_updated = ?2 WHERE did = ?3',
  setInterest: 'UPDATE accounts SET publish_interest = COALESCE(publish_interest, ?1) WHERE did = ?2',
} as const;
