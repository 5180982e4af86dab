export * from "./orderData.js";
