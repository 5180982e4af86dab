export * from "./erc6492.js";
