export { PRICE_FEED_DECIMALS, priceFeedAbi } from "./priceFeedAbi.js";
