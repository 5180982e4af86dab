import { apiKeyIdOf, callDeadline, type GrpcServiceRegistration, unaryHandler } from "@platform/grpc";
import type { Logger } from "@platform/log";
import {
  type AcceptRequest,
  type AcceptResponse,
  type TcServiceServer,
  TcServiceService,
} from "@platform/proto/tc/v1/tc";
import type { Redis } from "@platform/store";
import type { AcceptContext } from "./acceptance/accept.js";
import { nonceResponse } from "./acceptance/issueNonce.js";
import { generateNonce, storeNonce } from "./acceptance/nonces.js";
import type { SiweRules } from "./siwe/siweRules.js";
import { parseWalletAddress } from "./siwe/walletAddress.js";
import { gateOf } from "./status/gate.js";
import { statusOf } from "./status/getStatus.js";
import type { ProjectionStatus } from "./status/readAcceptance.js";
import { readAcceptance } from "./status/readAcceptance.js";

export interface TcServiceDependencies {
  log: Logger;
  redis: Redis;
  rules: SiweRules;
  projection: ProjectionStatus;
  accept(request: AcceptRequest, context: AcceptContext): Promise<AcceptResponse>;
  now?: () => Date;
}

export const TC_SERVICE_NAME = "platform.tc.v1.TcService";

/** The gRPC TcService: thin adapters from calls to the nonce store, the projection and Accept. */
export function tcServiceRegistration(deps: TcServiceDependencies): GrpcServiceRegistration {
  const { log, redis, rules, projection } = deps;
  const now = deps.now ?? (() => new Date());
  const implementation: TcServiceServer = {
    issueNonce: unaryHandler(log, "IssueNonce", async (request) => {
      const wallet = parseWalletAddress(request.walletAddress);
      const nonce = generateNonce();
      const issuedAt = now();
      await storeNonce(redis, nonce, wallet, rules.nonceTtlSeconds);
      return nonceResponse(wallet, nonce, rules, issuedAt);
    }),
    getStatus: unaryHandler(log, "GetStatus", async (request) => {
      const wallet = parseWalletAddress(request.walletAddress);
      return statusOf(wallet, rules.currentTcVersion, await readAcceptance(redis, projection, wallet));
    }),
    accept: unaryHandler(log, "Accept", (request, call) =>
      deps.accept(request, { deadline: callDeadline(call), apiKeyId: apiKeyIdOf(call) }),
    ),
    checkGate: unaryHandler(log, "CheckGate", async (request) => {
      const wallet = parseWalletAddress(request.walletAddress);
      return gateOf(rules.currentTcVersion, await readAcceptance(redis, projection, wallet));
    }),
  };
  return { name: TC_SERVICE_NAME, definition: TcServiceService, implementation };
}
