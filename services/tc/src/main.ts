import { unaryHandler } from "@platform/grpc";
import { createLogger } from "@platform/log";
import { TcServiceService, type GetStatusRequest, type GetStatusResponse } from "@platform/proto/tc/v1/tc";
import { createMetricsRegistry } from "@platform/runtime";
import { kafkaDependency, redisDependency, runBackendService } from "@platform/service";
import { loadTcConfig } from "./config.js";
import { statusOf } from "./getStatus.js";
import { readAcceptance } from "./readAcceptance.js";
import { parseWalletAddress } from "./walletAddress.js";

const config = loadTcConfig();
const log = createLogger({ service: "tc", level: config.LOG_LEVEL });
const redis = redisDependency(config.REDIS_URL, "tc");
const kafka = kafkaDependency(config.KAFKA_BROKERS, "tc", log);

await runBackendService({
  name: "tc",
  log,
  registry: createMetricsRegistry("tc"),
  grpc: {
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    services: [
      {
        name: "platform.tc.v1.TcService",
        definition: TcServiceService,
        implementation: {
          getStatus: unaryHandler<GetStatusRequest, GetStatusResponse>(log, "GetStatus", async (request) => {
            const wallet = parseWalletAddress(request.walletAddress);
            return statusOf(wallet, config.TC_CURRENT_VERSION, await readAcceptance(redis.client, wallet));
          }),
        },
      },
    ],
  },
  ops: { host: config.OPS_HOST, port: config.OPS_PORT },
  dependencies: [redis.check, kafka.check],
  readinessIntervalMs: config.READINESS_INTERVAL_MS,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  stops: [kafka.close, redis.close],
});
