export { erc20ErrorsAbi } from "./erc20Errors.js";
export { fullSettlerAbi } from "./generated/fullSettlerAbi.js";
export {
  addressToBytes32,
  bytes32ToAddress,
  computeOrderId,
  decodeOrderData,
  decodeOriginData,
  encodeFillerData,
  encodeOrderData,
  encodeOriginData,
  FULL_ORDER_PARAMS_TYPE,
  type FullOrderData,
  type FullOrderParams,
  NATIVE_TOKEN,
  OrderStatus,
  type OrderStatusName,
  orderDataTypeHash,
  orderStatusName,
  toFullOrderData,
} from "./orderData.js";
