export { erc20ErrorsAbi } from "./erc20Errors.js";
export { fullSettlerAbi } from "./generated/fullSettlerAbi.js";
export * from "./orderData.js";
