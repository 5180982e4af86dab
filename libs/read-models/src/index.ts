export * from "./holderRanking.js";
