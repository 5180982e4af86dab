export { createRedis, redisReadiness, type CreateRedisOptions, type Redis } from "./createRedis.js";
