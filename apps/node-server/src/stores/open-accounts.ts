import { type AccountServices, createAccountServices } from '@hub/account';
import type { Logger } from '@hub/core-index';
import { ConfigError, type HubConfigFile } from '../config.js';
import { SqliteAccountStore } from './sqlite-account-store.js';

export interface OpenAccounts {
  services: AccountServices;
  close(): Promise<void>;
}

/**
 * The account store the config names (issue 41): PostgreSQL when `database` is set (the write limit then counted
 * in the database, across every process that shares it), else `accounts.sqlite` in the data folder (the write limit
 * counted in this process). The PostgreSQL driver is loaded only when it is used.
 */
export async function openAccounts(config: HubConfigFile, dataDir: string, log: Logger): Promise<OpenAccounts> {
  if (config.database) {
    const { PostgresAccountStore, redactDatabaseUrl } = await import('./postgres-account-store.js');
    const url = config.database;
    const store = await PostgresAccountStore.open(url, { log }).catch((e: Error) => {
      // One line naming the database without its password; the driver's messages hold no password either.
      throw new ConfigError(`Cannot open the accounts database ${redactDatabaseUrl(url)}: ${e.message}`);
    });
    try {
      const limiter = store.writeLimiter(config.account?.writes);
      return { services: await createAccountServices(config.account, store, { limiter }), close: () => store.close() };
    } catch (e) {
      await store.close();
      throw e;
    }
  }
  const store = SqliteAccountStore.open(dataDir);
  try {
    return { services: await createAccountServices(config.account, store), close: async () => store.close() };
  } catch (e) {
    store.close();
    throw e;
  }
}
