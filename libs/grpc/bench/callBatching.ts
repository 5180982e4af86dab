// Development aid (not a benchmark of the product): CPU per unary call on both sides of the lean
// channel, one stream per call against the turn's calls in one CallBatchService stream.
//
//   cd libs/grpc && npx tsx --conditions=@platform/source bench/callBatching.ts [waves] [calls per wave]
//
// The server runs in a child process (startGrpcServer with a canned handler); the client sends
// waves of concurrent calls, each wave after the previous one answered, like the gateway's
// closed-loop connections. Prints calls/s and CPU µs per call of the client and of the server.
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Metadata } from "@grpc/grpc-js";
import { createLogger } from "@platform/log";
import { jsonUnaryService } from "../src/jsonUnaryService.js";
import { startGrpcServer } from "../src/startGrpcServer.js";
import { parseTarget } from "../src/unary/parseTarget.js";
import { createUnaryChannel } from "../src/unaryChannel.js";
import { unaryHandler } from "../src/unaryHandler.js";

const definition = jsonUnaryService({ echo: "/bench.Echo/Echo" });

if (process.argv[2] === "server") {
  const log = createLogger({ service: "bench-echo", level: "silent" });
  const answer = { price: "412.35", block: "123456", padding: "x".repeat(600) };
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [
      { name: "bench.Echo", definition, implementation: { echo: unaryHandler(log, "Echo", async () => answer) } },
    ],
  });
  server.setServing(true);
  process.send!({ port: server.port });
} else {
  const waves = Number(process.argv[2] ?? 3_000);
  const perWave = Number(process.argv[3] ?? 32);
  const child = fork(fileURLToPath(import.meta.url), ["server"], { execArgv: process.execArgv });
  const port = await new Promise<number>((resolve) =>
    child.once("message", (message: { port: number }) => resolve(message.port)),
  );
  const cpu = (pid: number) => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10_000; // µs
  };
  for (const round of [1, 2, 3]) {
    for (const batchCalls of [false, true]) {
      const channel = createUnaryChannel(parseTarget(`127.0.0.1:${port}`)!, { maxAttempts: 1, batchCalls });
      const request = definition.echo!.requestSerialize({ vs: "usd" });
      const wave = () =>
        Promise.all(
          Array.from({ length: perWave }, () => {
            const metadata = new Metadata();
            metadata.set("x-request-id", "0123456789abcdef");
            return channel.call("/bench.Echo/Echo", request, metadata, Date.now() + 5_000);
          }),
        );
      for (let i = 0; i < 200; i += 1) await wave();
      const before = { client: cpu(process.pid), server: cpu(child.pid!), at: performance.now() };
      for (let i = 0; i < waves; i += 1) {
        const results = await wave();
        if (!results.every((result) => result.ok)) throw new Error("a call failed");
      }
      const calls = waves * perWave;
      const seconds = (performance.now() - before.at) / 1_000;
      console.log(
        `round ${round} ${batchCalls ? "batched " : "one each"}: ${Math.round(calls / seconds)} calls/s, client ${((cpu(process.pid) - before.client) / calls).toFixed(1)} µs/call, server ${((cpu(child.pid!) - before.server) / calls).toFixed(1)} µs/call`,
      );
      channel.close();
    }
  }
  child.kill();
}
