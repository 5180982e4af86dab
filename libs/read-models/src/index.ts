export * from "./accounts.js";
export * from "./holderRanking.js";
export * from "./market.js";
export * from "./series.js";
export * from "./subnets.js";
export * from "./versions.js";
export * from "./changeLogs.js";
