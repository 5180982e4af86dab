export { type Grant, unionGrant } from "./grant.js";
export {
  LOCAL_PRINCIPALS,
  PRINCIPAL_NAMES,
  PRINCIPALS,
  type Principal,
  type ProjectionPrincipal,
  projectionGrant,
  projectionPrincipal,
} from "./principals.js";
export { natsUsersOf, principalsOn, redisUsersOf } from "./serverUsers.js";
