export { deployPriceFeed, devnetPriceFeed, devnetPriceUpdaterFunds } from "./deployPriceFeed.js";
