export * from "./holderRanking.js";
export * from "./versions.js";
