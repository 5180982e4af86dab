/**
 * A probe of chopsticks on the scale state as its chain grows: the state of scaleState.ts written
 * into scaleNode.ts's chopsticks, then BENCH_PROBE_ROUNDS (6) rounds of 200 empty blocks (one
 * `dev_newBlock` each), and after each round: 1,000 `Alpha` keys (`state_getKeysPaged`) and their
 * values (`state_queryStorageAt`) at block 3 and at the head, and one more block's build time.
 * README ("The layer chain") has its figures with the stock layer walk and with indexedKeys.mjs's.
 *
 *   cd bench && node --import tsx --conditions=@platform/source native/scale/depthProbe.ts
 */
import { join } from "node:path";
import { subtensorChainSpec } from "@platform/devnet";
import { tempDir } from "@platform/testing";
import { startScaleNode } from "./node.js";
import { generateScaleState, type Hex, MAINNET_SIZES, rawKeys, writeScaleState } from "./scaleState.js";

const ROUNDS = Number(process.env.BENCH_PROBE_ROUNDS ?? 6);
const dir = tempDir("bench-depth-probe");
const node = await startScaleNode({
  genesis: subtensorChainSpec(),
  logFile: join(dir.path, "chopsticks.log"),
  indexedKeys: (process.env.BENCH_SCALE_CHOPSTICKS ?? "indexed") !== "stock",
});
try {
  const issuance = await node.request<Hex>("state_getStorage", [rawKeys.plain("Balances", "TotalIssuance")]);
  let genesisIssuance = 0n;
  const bytes = Buffer.from(issuance.slice(2), "hex");
  for (let index = bytes.length - 1; index >= 0; index--)
    genesisIssuance = (genesisIssuance << 8n) | BigInt(bytes[index]!);
  const state = generateScaleState({
    seed: 42,
    sizes: MAINNET_SIZES,
    genesisIssuance,
    extraAccounts: [],
    tokenSymbol: false,
  });
  await writeScaleState(node.request, state.pairs, {});
  const alpha = rawKeys.prefix("SubtensorModule", "Alpha");
  const probe = async (label: string) => {
    const head = Number((await node.request<{ number: string }>("chain_getHeader")).number);
    for (const [name, number] of [
      ["block 3", 3],
      ["the head", head],
    ] as const) {
      const at = await node.request<Hex>("chain_getBlockHash", [number]);
      let started = performance.now();
      const keys = await node.request<Hex[]>("state_getKeysPaged", [alpha, 1_000, alpha, at]);
      const keysMs = performance.now() - started;
      started = performance.now();
      await node.request("state_queryStorageAt", [keys, at]);
      const valuesMs = performance.now() - started;
      console.log(
        `${label} (head ${head}), at ${name}: 1,000 Alpha keys ${keysMs.toFixed(0)} ms, their values ${valuesMs.toFixed(0)} ms`,
      );
    }
    const started = performance.now();
    await node.newBlocks(1);
    console.log(`  one more block: built in ${(performance.now() - started).toFixed(0)} ms`);
  };
  await node.newBlocks(1);
  await probe("shallow");
  for (let round = 1; round <= ROUNDS; round++) {
    const started = performance.now();
    // In rounds of 200: one dev_newBlock of more blocks outlasts the HTTP client's header timeout.
    await node.request("dev_newBlock", [{ count: 200 }]);
    console.log(`200 blocks built in ${(performance.now() - started).toFixed(0)} ms`);
    await probe(`${round * 200} blocks deeper`);
  }
} finally {
  await node.stop();
  dir.remove();
}
