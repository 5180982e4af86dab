export { ConfigError, loadConfig, loadConfigOrExit } from "./loadConfig.js";
export { vars } from "./vars.js";
