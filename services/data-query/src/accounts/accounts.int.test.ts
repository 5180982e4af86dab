/* AccountsService on Redis alone (the contract of the Redis layout): testSupport/accountsContract.ts. */
process.env.ACCOUNTS_CONTRACT_MODE = "redis";
await import("./testSupport/accountsContract.js");
