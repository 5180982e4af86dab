import { vars } from "./vars.js";

/**
 * Each service's own credentials on the shared servers (its Redis ACL user, its NATS user): in
 * their own variables, so the addresses stay plain configuration and only these come from a Secret.
 * Unset, the service connects without credentials (a server without users).
 */
export const redisCredentialVars = {
  REDIS_USERNAME: vars.string().optional(),
  REDIS_PASSWORD: vars.string().optional(),
};

export const natsCredentialVars = {
  NATS_USERNAME: vars.string().optional(),
  NATS_PASSWORD: vars.string().optional(),
};
