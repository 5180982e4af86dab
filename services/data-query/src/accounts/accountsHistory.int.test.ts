/*
 * AccountsService with the history database (PostgreSQL): balance history, balances at older
 * blocks and transactions are read there, and every answer equals the Redis-only one
 * (testSupport/accountsContract.ts).
 */
process.env.ACCOUNTS_CONTRACT_MODE = "history";
await import("./testSupport/accountsContract.js");
