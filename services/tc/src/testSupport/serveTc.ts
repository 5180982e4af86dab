import { loadChainConfig } from "@platform/chain";
import { createGrpcClient, startGrpcServer } from "@platform/grpc";
import type { Logger } from "@platform/log";
import { TcServiceClient } from "@platform/proto/tc/v1/tc";
import { createTcComponents, type TcComponents } from "../app.js";
import type { TcConfig } from "../config.js";
import { loadTcVersions } from "../tcVersions.js";

export interface ServedTc {
  tc: InstanceType<typeof TcServiceClient>;
  components: TcComponents;
  /** The client, the server (1 s to drain), then the components' own stop steps. */
  stop(): Promise<void>;
}

/** tc in process behind a real gRPC server on loopback, as its main starts it, with a client. */
export async function serveTc(config: TcConfig, log: Logger): Promise<ServedTc> {
  const components = createTcComponents(
    config,
    { chains: await loadChainConfig(config.CHAINS_FILE), versions: await loadTcVersions(config.TC_VERSIONS_FILE) },
    log,
    { projectionIntervalMs: 250 },
  );
  const server = await startGrpcServer({ host: "127.0.0.1", port: 0, services: [components.grpc] });
  server.setServing(true);
  const tc = createGrpcClient(TcServiceClient, { target: `127.0.0.1:${server.port}`, deadlineMs: 15_000 });
  return {
    tc,
    components,
    async stop() {
      tc.close();
      await server.shutdown(1_000);
      for (const step of components.stops) await step.run();
    },
  };
}
