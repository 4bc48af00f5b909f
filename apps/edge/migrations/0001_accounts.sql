-- Accounts at the edge (D1): the shared ACCOUNT_SCHEMA of @hub/account (test/migrations.test.ts keeps them equal).
-- Apply with: wrangler d1 migrations apply hub-accounts --remote
CREATE TABLE IF NOT EXISTS accounts (
  did TEXT PRIMARY KEY,
  created TEXT NOT NULL,
  wallet TEXT,
  wallet_updated TEXT,
  publish_interest TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS saved (
  did TEXT NOT NULL REFERENCES accounts(did),
  model_key TEXT NOT NULL,
  model TEXT NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (did, model_key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS saved_order ON saved (did, position);
CREATE TABLE IF NOT EXISTS requests (
  id INTEGER PRIMARY KEY,
  did TEXT NOT NULL REFERENCES accounts(did),
  model_key TEXT NOT NULL,
  model TEXT NOT NULL,
  created TEXT NOT NULL,
  UNIQUE (did, model_key)
);
CREATE INDEX IF NOT EXISTS requests_model ON requests (model_key);
