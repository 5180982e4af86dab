import { waitFor } from "@platform/testing";
import { encodeFunctionData, type Hex, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { opensSince, prepareBurst, rpcBatch } from "./support/burstOpens.js";
import { fillAsFiller, fullSettlerAbi, fundUser, openOrder, orderOfQuote } from "./support/intentsActors.js";
import { type IntentsStack, intentBecomes, type Json, startIntentsStack } from "./support/intentsStack.js";

// Issue 5's reorganisation and crash-safety acceptance on a whole local stack (no simulator): chain
// reorganisations made with anvil snapshots, and the ingestor and projector killed with SIGKILL.
let s: IntentsStack;

beforeAll(async () => {
  s = await startIntentsStack("e2e-intents-resilience");
}, 240_000);

afterAll(async () => {
  await s?.stop();
}, 120_000);

async function openUsdcOrder() {
  const user = privateKeyToAccount(generatePrivateKey());
  await fundUser(s, user, { usdc: 1_000_000_000n });
  const quoted = await s.api.post("/intents/v1/quotes", {
    originChainId: 31337,
    destinationChainId: 31338,
    inputToken: s.origin.usdc,
    outputToken: s.destination.usdc,
    amount: "100000000",
    userAddress: user.address,
  });
  expect(quoted.status).toBe(200);
  return { user, opened: await openOrder(s.origin, user, orderOfQuote(await s.api.json(quoted))) };
}

const pendingOf = async (user: string): Promise<Json[]> =>
  (await s.api.json(await s.api.get(`/intents/v1/intents/pending?userAddress=${user}&limit=100`)))._embedded
    .items as Json[];

describe("chain reorganisations", () => {
  it("an Open reorganised out disappears from the reads", async () => {
    const snapshot = await s.origin.testClient.snapshot();
    const { user, opened } = await openUsdcOrder();
    await intentBecomes(s.api, opened.orderId, (record) => record?.status === "OPEN", "OPEN");
    expect((await pendingOf(user.address)).map((item) => item.orderId)).toEqual([opened.orderId]);

    // Back to before the funding and the open; the new blocks at those heights hold neither.
    await s.origin.testClient.revert({ id: snapshot });
    await s.origin.testClient.mine({ blocks: 3 });
    await intentBecomes(s.api, opened.orderId, (record) => record === undefined, "the reorganised-out order gone");
    expect(await pendingOf(user.address)).toEqual([]);
    const byTx = await s.api.json(await s.api.get(`/intents/v1/intents?originChainId=31337&txHash=${opened.hash}`));
    expect(byTx._embedded.items).toEqual([]);
  }, 60_000);

  it("a Filled reorganised out moves the record back to OPEN", async () => {
    const { opened } = await openUsdcOrder();
    await intentBecomes(s.api, opened.orderId, (record) => record?.status === "OPEN", "OPEN");
    const snapshot = await s.destination.testClient.snapshot();
    await fillAsFiller(s, opened);
    await intentBecomes(s.api, opened.orderId, (record) => record?.status === "FILLED", "FILLED");

    await s.destination.testClient.revert({ id: snapshot });
    await s.destination.testClient.mine({ blocks: 2 });
    const back = await intentBecomes(s.api, opened.orderId, (record) => record?.status === "OPEN", "back to OPEN");
    expect(back).toMatchObject({ status: "OPEN", filled: null, filler: null });

    // Filled again on the new branch: FILLED again.
    await fillAsFiller(s, opened);
    await intentBecomes(s.api, opened.orderId, (record) => record?.status === "FILLED", "FILLED again");
  }, 60_000);
});

describe("crash safety", () => {
  it("after kill -9 of the ingestor and the projector during a burst of 200 opens, every order is there once with its status", async () => {
    const fromBlock = (await s.origin.publicClient.getBlockNumber()) + 1n;
    const burst = await prepareBurst(s.origin, 31338, 20);
    const ours = new Set(burst.senders.map((sender) => sender.toLowerCase()));
    const minedOpens = async () =>
      (await opensSince(s.origin, fromBlock)).filter((open) => ours.has(open.user.toLowerCase()));

    await burst.send(0, 100);
    // Killed while the burst is being mined and ingested.
    await waitFor(async () => (await minedOpens()).length > 0, {
      what: "the first opens mined",
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    s.stack.processes.get("chain-ingestor")!.kill("SIGKILL");
    s.stack.processes.get("projector")!.kill("SIGKILL");
    await burst.send(100, 200);
    const opens = await waitFor(
      async () => {
        const mined = await minedOpens();
        return mined.length === 200 ? mined : undefined;
      },
      { what: "all 200 opens mined", timeoutMs: 30_000 },
    );

    // While both are down, the filler fills a quarter of them: those must come back FILLED.
    const filled = new Set(opens.filter((_, index) => index % 4 === 0).map((open) => open.orderId));
    const filler = s.filler.address;
    const fillerNonce = Number(
      await s.destination.publicClient.getTransactionCount({ address: filler, blockTag: "pending" }),
    );
    await rpcBatch(s.destination.rpcUrl, [{ method: "anvil_impersonateAccount", params: [filler] }]);
    const fills = opens
      .filter((open) => filled.has(open.orderId))
      .map((open, index) => ({
        method: "eth_sendTransaction",
        params: [
          {
            from: filler,
            to: s.destination.settler,
            data: encodeFunctionData({
              abi: fullSettlerAbi,
              functionName: "fill",
              args: [open.orderId, open.originData, "0x"],
            }),
            value: toHex(990n),
            gas: toHex(200_000n),
            nonce: toHex(fillerNonce + index),
            maxFeePerGas: toHex(10n ** 13n),
            maxPriorityFeePerGas: "0x0",
          },
        ],
      }));
    const sent = await rpcBatch(s.destination.rpcUrl, fills);
    expect(sent.filter((answer) => answer.error !== undefined)).toEqual([]);
    await waitFor(
      async () =>
        Number(await s.destination.publicClient.getTransactionCount({ address: filler, blockTag: "latest" })) >=
        fillerNonce + fills.length,
      {
        what: "the fills mined",
        timeoutMs: 30_000,
      },
    );

    await Promise.all([s.stack.restart("chain-ingestor"), s.stack.restart("projector")]);

    const expected = new Map(opens.map((open) => [open.orderId, filled.has(open.orderId) ? "FILLED" : "OPEN"]));
    const bySender = new Map<string, typeof opens>();
    for (const open of opens)
      bySender.set(open.user.toLowerCase(), [...(bySender.get(open.user.toLowerCase()) ?? []), open]);
    await waitFor(
      async () => {
        for (const [sender, theirs] of bySender) {
          const items = await pendingOf(sender);
          if (items.length !== theirs.length) return false;
          if (items.some((item) => expected.get(item.orderId as Hex) !== item.status)) return false;
        }
        return true;
      },
      { what: "every order of the burst in the mirror with its status", timeoutMs: 60_000, intervalMs: 500 },
    );
    // Exactly once: no order twice in a list, none missing, none extra.
    const listed = (await Promise.all([...bySender.keys()].map(pendingOf))).flat().map((item) => item.orderId as Hex);
    expect(listed).toHaveLength(200);
    expect(new Set(listed)).toEqual(new Set(expected.keys()));
    for (const open of opens.slice(0, 5)) {
      const record = await s.api.intent(open.orderId);
      expect(record).toMatchObject({ status: expected.get(open.orderId), originTxHash: open.txHash });
    }
  }, 180_000);
});
