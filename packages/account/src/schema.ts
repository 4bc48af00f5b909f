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
