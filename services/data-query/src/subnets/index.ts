import { type GrpcServiceRegistration, unaryHandler } from "@platform/grpc";
import type { HistoryDb } from "@platform/history";
import type { Logger } from "@platform/log";
import { type GetSubnetsHistoryRequest, SubnetsServiceService } from "@platform/proto/data/v1/subnets";
import { readModelVersionKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import type { Registry } from "prom-client";
import { answerCache } from "../shared/answerCache.js";
import { getHoldersTop } from "./holders.js";
import { getNeuronsLatest } from "./neurons.js";
import { getSubnetsHistory } from "./subnetsHistory.js";
import { getSubnetsLatest } from "./subnetsLatest.js";
import { getValidatorsLatest } from "./validators.js";

export interface SubnetsReadsOptions {
  redis: Redis;
  /** The history database: reads at a block older than the newest points Redis keeps (subnets/history too). */
  history?: HistoryDb | undefined;
  /** Bound on the kept answers' wire bytes (DATA_QUERY's ANSWER_CACHE_MAX_BYTES). */
  answerCacheMaxBytes: number;
  registry?: Registry;
}

/**
 * The reads over the projector's subnets read model (libs/read-models subnets.ts),
 * each kept for as long as the projection's version stands: every answer here is the network's
 * state at the read model's newest block, the same for every caller, and the heaviest of the Data
 * API to compute.
 */
export function subnetsReads(options: SubnetsReadsOptions) {
  const { redis, history } = options;
  const answers = answerCache({
    redis,
    versionKey: readModelVersionKeys.subnets,
    maxBytes: options.answerCacheMaxBytes,
    registry: options.registry,
    name: "SubnetsService",
  });
  const methods = SubnetsServiceService;
  return {
    definition: answers.preEncoded(SubnetsServiceService),
    getSubnetsLatest: answers.cached(methods.getSubnetsLatest, (request) => getSubnetsLatest(redis, request, history)),
    getValidatorsLatest: answers.cached(methods.getValidatorsLatest, (request) =>
      getValidatorsLatest(redis, request, history),
    ),
    getHoldersTop: answers.cached(methods.getHoldersTop, (request) => getHoldersTop(redis, request, history)),
    getNeuronsLatest: answers.cached(methods.getNeuronsLatest, (request) => getNeuronsLatest(redis, request, history)),
    // Not kept: its default window moves with the clock, not only with the read model's version.
    getSubnetsHistory: (request: GetSubnetsHistoryRequest) => getSubnetsHistory(redis, request, history),
  };
}

/** SubnetsService: subnetsReads behind gRPC. */
export function subnetsGrpcService(deps: {
  redis: Redis;
  history?: HistoryDb | undefined;
  log: Logger;
  answerCacheMaxBytes: number;
  registry?: Registry;
}): GrpcServiceRegistration {
  const { log } = deps;
  const reads = subnetsReads(deps);
  return {
    name: "platform.data.v1.SubnetsService",
    definition: reads.definition,
    implementation: {
      getSubnetsLatest: unaryHandler(log, "GetSubnetsLatest", reads.getSubnetsLatest),
      getValidatorsLatest: unaryHandler(log, "GetValidatorsLatest", reads.getValidatorsLatest),
      getHoldersTop: unaryHandler(log, "GetHoldersTop", reads.getHoldersTop),
      getSubnetsHistory: unaryHandler(log, "GetSubnetsHistory", reads.getSubnetsHistory),
      getNeuronsLatest: unaryHandler(log, "GetNeuronsLatest", reads.getNeuronsLatest),
    },
  };
}
