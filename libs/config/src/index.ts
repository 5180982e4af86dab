export {
  natsCredentialVars,
  postgresVars,
  redisClusterUnsupported,
  redisCredentialVars,
  redisReadFromVars,
  redisTopologyRule,
  redisTopologyVars,
} from "./connectionVars.js";
export { ConfigError, loadConfig, loadConfigOrExit, loadFromVariableOrExit } from "./loadConfig.js";
export { vars } from "./vars.js";
