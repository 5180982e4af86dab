import { type GrpcServiceRegistration, unaryHandler } from "@platform/grpc";
import type { Logger } from "@platform/log";
import {
  type AuthAdminServiceServer,
  AuthAdminServiceService,
  type AuthServiceServer,
  AuthServiceService,
} from "@platform/proto/auth/v1/auth";
import type { TokenIssuer } from "../issue/issueToken.js";
import type { AdminCommands } from "../registry/adminCommands.js";
import type { RefreshTokenAdmin } from "../registry/refreshTokenAdmin.js";
import { signingKeysResponse } from "../tokens/publishedKeys.js";
import type { SigningKeyStore } from "../tokens/signingKeyStore.js";
import { deadlineOf } from "./deadline.js";

export const AUTH_SERVICE_NAME = "platform.auth.v1.AuthService";
export const AUTH_ADMIN_SERVICE_NAME = "platform.auth.v1.AuthAdminService";

export interface AuthServiceDependencies {
  log: Logger;
  issueToken: TokenIssuer;
  signingKeys: SigningKeyStore;
  issuer: string;
  audience: string;
}

/** The gRPC AuthService (what the gateway calls): thin adapters from calls to the issuer and the key store. */
export function authServiceRegistration(deps: AuthServiceDependencies): GrpcServiceRegistration {
  const { log, issueToken } = deps;
  const implementation: AuthServiceServer = {
    issueToken: unaryHandler(log, "IssueToken", (request, call) => issueToken(request, deadlineOf(call))),
    getSigningKeys: unaryHandler(log, "GetSigningKeys", async () =>
      signingKeysResponse(deps.signingKeys.keys(), deps.issuer, deps.audience),
    ),
  };
  return { name: AUTH_SERVICE_NAME, definition: AuthServiceService, implementation };
}

/** The gRPC AuthAdminService (the admin CLI's, on its own listener): thin adapters to the admin commands. */
export function authAdminServiceRegistration(deps: {
  log: Logger;
  admin: AdminCommands;
  refreshTokens: RefreshTokenAdmin;
}): GrpcServiceRegistration {
  const { log, admin, refreshTokens } = deps;
  const implementation: AuthAdminServiceServer = {
    createApiKey: unaryHandler(log, "CreateApiKey", (request, call) => admin.create(request, deadlineOf(call))),
    listApiKeys: unaryHandler(log, "ListApiKeys", (request) => admin.list(request)),
    revokeApiKey: unaryHandler(log, "RevokeApiKey", (request, call) => admin.revoke(request, deadlineOf(call))),
    rotateApiKeySecret: unaryHandler(log, "RotateApiKeySecret", (request, call) =>
      admin.rotate(request, deadlineOf(call)),
    ),
    listRefreshTokens: unaryHandler(log, "ListRefreshTokens", (request) => refreshTokens.list(request)),
    revokeRefreshToken: unaryHandler(log, "RevokeRefreshToken", (request, call) =>
      refreshTokens.revoke(request, deadlineOf(call)),
    ),
  };
  return { name: AUTH_ADMIN_SERVICE_NAME, definition: AuthAdminServiceService, implementation };
}
