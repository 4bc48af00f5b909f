import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ACCOUNT_SCHEMA } from '@hub/account';
import { describe, expect, it } from 'vitest';

/** One statement per entry, comments dropped, white space folded. */
function statements(sql: string): string[] {
  return sql
    .replace(/--[^\n]*/g, '')
    .split(';')
    .map((s) => s.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim())
    .filter(Boolean);
}

describe('D1 migrations', () => {
  it('hold exactly the shared account schema that the stores create', () => {
    const file = fileURLToPath(new URL('../migrations/0001_accounts.sql', import.meta.url));
    expect(statements(readFileSync(file, 'utf8'))).toEqual(ACCOUNT_SCHEMA.map((s) => statements(s)[0]));
  });
});
