import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningAnvil, startAnvil } from "./anvil.js";
import { isAlive } from "./process.js";
import { tempDir } from "./tempDir.js";

const dir = tempDir("anvil");
const started: RunningAnvil[] = [];

afterAll(async () => {
  await Promise.all(started.map((anvil) => anvil.stop()));
  dir.remove();
});

async function start(options: Omit<Parameters<typeof startAnvil>[0], "logFile">): Promise<RunningAnvil> {
  const anvil = await startAnvil({ ...options, logFile: join(dir.path, `anvil-${started.length}.log`) });
  started.push(anvil);
  return anvil;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<string> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: string; error?: { message: string } };
  if (body.result === undefined) throw new Error(`${method}: ${body.error?.message ?? "no result"}`);
  return body.result;
}

describe("startAnvil", () => {
  it("answers on loopback with the requested chain id and stops cleanly", async () => {
    const anvil = await start({ chainId: 31_999 });
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`);
    expect(BigInt(await rpc(anvil.rpcUrl, "eth_chainId"))).toBe(31_999n);
    await anvil.stop();
    expect(isAlive(anvil.process.pid)).toBe(false);
    await expect(rpc(anvil.rpcUrl, "eth_chainId")).rejects.toThrow();
  });

  it("refuses a port another node already holds instead of passing that node off as its own", async () => {
    const first = await start({ chainId: 31_998 });
    await expect(start({ chainId: 31_998, port: first.port })).rejects.toThrow(/already in use/);
  });

  it("mines on an interval when a block time is given", async () => {
    const anvil = await start({ chainId: 31_997, blockTimeSeconds: 1 });
    await sleep(2_500);
    expect(BigInt(await rpc(anvil.rpcUrl, "eth_blockNumber"))).toBeGreaterThanOrEqual(2n);
  });

  it("keeps chain state across a restart through the state file", async () => {
    const stateFile = join(dir.path, "state.json");
    const account = "0x00000000000000000000000000000000000000aa";
    const first = await start({ chainId: 31_996, stateFile });
    await rpc(first.rpcUrl, "anvil_setBalance", [account, "0x1234"]);
    await rpc(first.rpcUrl, "evm_mine");
    await first.stop();

    const second = await start({ chainId: 31_996, stateFile });
    expect(BigInt(await rpc(second.rpcUrl, "eth_getBalance", [account, "latest"]))).toBe(0x1234n);
  });
});
