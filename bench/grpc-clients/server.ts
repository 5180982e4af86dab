import { Writable } from "node:stream";
import { startGrpcServer, unaryHandler } from "@platform/grpc";
import { createLogger } from "@platform/log";
import { AccountsServiceService, GetBalanceLatestResponse } from "@platform/proto/data/v1/accounts";

/**
 * One backend of the gRPC client bench (run.ts): the real server (startGrpcServer, which also
 * serves CallBatchService) with AccountsService.GetBalanceLatest answering a fixed, realistically
 * sized balance (ten valued positions, about 1.9 KB on the wire). Prints its port on stdout.
 */
const log = createLogger({
  service: "bench-grpc-server",
  level: "warn",
  destination: new Writable({ write: (_c, _e, done) => done() }),
});
const account = (byte: number) => ({
  ss58: `5${String(byte).padStart(47, "F")}`,
  publicKey: `0x${byte.toString(16).padStart(2, "0").repeat(32)}`,
});
const answer: GetBalanceLatestResponse = GetBalanceLatestResponse.fromPartial({
  asOf: {
    chainId: "945",
    blockNumber: "5123456",
    blockHash: `0x${"ab".repeat(32)}`,
    timestamp: "2026-11-27T03:00:00Z",
  },
  address: account(1),
  balanceFreeRao: "123456789012",
  balanceReservedRao: "0",
  balanceFrozenRao: "0",
  balanceStakedRao: "987654321098",
  balanceStakedRootRao: "12345678901",
  balanceStakedAlphaValueRao: "975308642197",
  balanceTotalRao: "1111111110110",
  positions: Array.from({ length: 10 }, (_, index) => ({
    netuid: index + 1,
    hotkey: account(index + 2),
    hotkeyName: `validator ${index}`,
    stakeNalpha: String(1_000_000_000_000 + index),
    priceTao: "0.012345678901",
    valueRao: String(12_345_678_901 + index),
  })),
});

const server = await startGrpcServer({
  host: "127.0.0.1",
  port: 0,
  services: [
    {
      name: "platform.data.v1.AccountsService",
      definition: AccountsServiceService,
      implementation: { getBalanceLatest: unaryHandler(log, "GetBalanceLatest", async () => answer) },
    },
  ],
});
server.setServing(true);
process.stdout.write(`${server.port}\n`);
