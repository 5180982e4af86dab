import { unaryHandler, type GrpcServiceRegistration } from "@platform/grpc";
import type { Logger } from "@platform/log";
import {
  SubnetsServiceService,
  type GetHoldersTopRequest,
  type GetHoldersTopResponse,
  type GetSubnetsLatestRequest,
  type GetSubnetsLatestResponse,
  type GetValidatorsLatestRequest,
  type GetValidatorsLatestResponse,
} from "@platform/proto/data/v1/subnets";
import type { Redis } from "@platform/store";
import { getHoldersTop } from "./holders.js";
import { getSubnetsLatest } from "./subnetsLatest.js";
import { getValidatorsLatest } from "./validators.js";

/** SubnetsService over the projector's subnets read model (services/projector/src/subnets/keys.ts). */
export function subnetsGrpcService(deps: { redis: Redis; log: Logger }): GrpcServiceRegistration {
  const { redis, log } = deps;
  return {
    name: "platform.data.v1.SubnetsService",
    definition: SubnetsServiceService,
    implementation: {
      getSubnetsLatest: unaryHandler<GetSubnetsLatestRequest, GetSubnetsLatestResponse>(log, "GetSubnetsLatest", (request) => getSubnetsLatest(redis, request)),
      getValidatorsLatest: unaryHandler<GetValidatorsLatestRequest, GetValidatorsLatestResponse>(log, "GetValidatorsLatest", (request) => getValidatorsLatest(redis, request)),
      getHoldersTop: unaryHandler<GetHoldersTopRequest, GetHoldersTopResponse>(log, "GetHoldersTop", (request) => getHoldersTop(redis, request)),
    },
  };
}
