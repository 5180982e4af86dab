import { addressToBytes32, encodeOrderData, fullSettlerAbi, OrderStatus, orderDataTypeHash } from "@platform/devnet";
import type { Logger } from "@platform/log";
import { type Account, erc20Abi, type Hash, type Hex, maxUint256, parseEther, parseEventLogs, zeroAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type DemoRoute, outputAfterFee } from "./demoRoutes.js";
import { seededRandom } from "./seededRandom.js";
import type { SettlerChain } from "./settlerChains.js";

export interface DemoTraderOptions {
  routes: readonly DemoRoute[];
  /** Pays the demo users' gas and tokens at start (the devnet filler holds plenty of both). */
  funder: Account;
  users: number;
  /** Seconds between opening an order and its fill deadline; above the settlers' minimum fill window. */
  fillWindowSeconds: number;
  /** Every n-th order pays the filler nothing, so it is left to expire. */
  unfilledEvery: number;
  seed: number;
  log: Logger;
}

/** Orders a demo user may open before its token funds run low. */
const ORDERS_FUNDED = 2_000n;
const MAX_AMOUNT_FACTOR = 10;

interface Unfilled {
  orderId: Hex;
  origin: SettlerChain;
  user: Account;
  refundableAt: bigint;
  /** Every other unfilled order is refunded; the rest stay EXPIRED on the running stack. */
  refund: boolean;
}

/**
 * Demo users on the running stack: fresh accounts (keys in memory only) funded by the filler, each
 * `openOne` opens an order on a random configured route. Most pay the route's fee and are filled and
 * settled; every `unfilledEvery`-th pays nothing, so no filler takes it: it expires, and every other
 * such order is refunded once `refundableAt` passes, so the mirror shows every on-chain state.
 */
export function createDemoTrader(options: DemoTraderOptions) {
  const { routes, log } = options;
  const random = seededRandom(options.seed);
  const users = Array.from({ length: options.users }, () => privateKeyToAccount(generatePrivateKey()));
  const nonces = new Map<string, bigint>();
  const unfilled: Unfilled[] = [];
  let opened = 0;
  let unfilledCount = 0;
  let refunded = 0;

  return {
    users: users.map((user) => user.address),
    get opened() {
      return opened;
    },
    get refunded() {
      return refunded;
    },
    /** Gas and tokens for every demo user on every origin of a route, and approvals to its settler. */
    async prepare(): Promise<void> {
      await fundDemoUsers(routes, users, options.funder, log);
    },
    /** Opens one order from the next demo user on a random route. */
    async openOne(): Promise<void> {
      if (routes.length === 0 || users.length === 0) return;
      const route = routes[Math.floor(random() * routes.length)]!;
      const user = users[opened % users.length]!;
      const inputAmount = route.limits.min * BigInt(1 + Math.floor(random() * MAX_AMOUNT_FACTOR));
      const leaveUnfilled = options.unfilledEvery > 0 && (opened + 1) % options.unfilledEvery === 0;
      const outputAmount = leaveUnfilled ? inputAmount : outputAfterFee(route, inputAmount);
      const nonceKey = `${route.origin.chainId}:${user.address}`;
      const nonce = (nonces.get(nonceKey) ?? 0n) + 1n;
      const head = await route.origin.publicClient.getBlock({ blockTag: "latest" });
      const fillDeadline = Number(head.timestamp) + options.fillWindowSeconds;
      const orderData = encodeOrderData({
        nonce,
        destinationChainId: BigInt(route.destination.chainId),
        inputToken: addressToBytes32(route.inputToken),
        inputAmount,
        outputToken: addressToBytes32(route.outputToken),
        outputAmount,
        recipient: addressToBytes32(user.address),
      });
      const hash = await route.origin.wallet(user).writeContract({
        address: route.origin.settler,
        abi: fullSettlerAbi,
        functionName: "open",
        args: [{ fillDeadline, orderDataType: orderDataTypeHash, orderData }],
        value: route.inputToken === zeroAddress ? inputAmount : 0n,
      });
      nonces.set(nonceKey, nonce);
      const receipt = await route.origin.publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 });
      if (receipt.status !== "success") throw new Error(`open ${hash} reverted`);
      const [event] = parseEventLogs({ abi: fullSettlerAbi, eventName: "Open", logs: receipt.logs });
      opened++;
      const orderId = event!.args.orderId;
      if (leaveUnfilled) {
        const grace = await route.origin.publicClient.readContract({
          address: route.origin.settler,
          abi: fullSettlerAbi,
          functionName: "REFUND_GRACE",
        });
        unfilled.push({
          orderId,
          origin: route.origin,
          user,
          refundableAt: BigInt(fillDeadline) + grace,
          refund: unfilledCount++ % 2 === 0,
        });
      }
      log.info(
        {
          orderId,
          originChainId: route.origin.chainId,
          destinationChainId: route.destination.chainId,
          leftUnfilled: leaveUnfilled,
        },
        "demo order opened",
      );
    },
    /** Refunds the demo's unfilled orders chosen for it once their origin clock allows. */
    async refundDue(): Promise<void> {
      for (const entry of [...unfilled]) {
        if (!entry.refund) {
          unfilled.splice(unfilled.indexOf(entry), 1);
          continue;
        }
        const head = await entry.origin.publicClient.getBlock({ blockTag: "latest" });
        if (head.timestamp < entry.refundableAt) continue;
        unfilled.splice(unfilled.indexOf(entry), 1);
        const status = await entry.origin.publicClient.readContract({
          address: entry.origin.settler,
          abi: fullSettlerAbi,
          functionName: "orderStatus",
          args: [entry.orderId],
        });
        if (status !== OrderStatus.OPENED) continue;
        const hash = await entry.origin.wallet(entry.user).writeContract({
          address: entry.origin.settler,
          abi: fullSettlerAbi,
          functionName: "refund",
          args: [entry.orderId],
        });
        const receipt = await entry.origin.publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 });
        if (receipt.status === "success") refunded++;
        log.info(
          { orderId: entry.orderId, originChainId: entry.origin.chainId, ok: receipt.status === "success" },
          "demo order refunded",
        );
      }
    },
  };
}

/** Gas and tokens for every demo user on every origin of a route, and approvals to its settler. */
async function fundDemoUsers(
  routes: readonly DemoRoute[],
  users: readonly Account[],
  funder: Account,
  log: Logger,
): Promise<void> {
  const origins = [...new Map(routes.map((route) => [route.origin.chainId, route.origin])).values()];
  await Promise.all(origins.map((origin) => fundDemoUsersOnOrigin(origin, routes, users, funder)));
  log.info({ users: users.length, origins: origins.map((origin) => origin.chainId) }, "demo users funded");
}

/** One origin's share of `fundDemoUsers`: gas and the input tokens of its routes, then the approvals. */
async function fundDemoUsersOnOrigin(
  origin: SettlerChain,
  routes: readonly DemoRoute[],
  users: readonly Account[],
  funderAccount: Account,
): Promise<void> {
  const tokens = new Map<string, bigint>();
  for (const route of routes.filter(
    (candidate) => candidate.origin === origin && candidate.inputToken !== zeroAddress,
  )) {
    tokens.set(
      route.inputToken,
      (tokens.get(route.inputToken) ?? 0n) + route.limits.min * BigInt(MAX_AMOUNT_FACTOR) * ORDERS_FUNDED,
    );
  }
  const funder = origin.wallet(funderAccount);
  const sent: Hash[] = [];
  // Back to back: the node numbers them from its pending nonce, and all are awaited together.
  for (const user of users) {
    sent.push(await funder.sendTransaction({ to: user.address, value: parseEther("10") }));
    for (const [token, amount] of tokens) {
      sent.push(
        await funder.writeContract({
          address: token as Hex,
          abi: erc20Abi,
          functionName: "transfer",
          args: [user.address, amount],
        }),
      );
    }
  }
  await confirm(origin, sent);
  const approvals: Hash[] = [];
  for (const user of users) {
    for (const token of tokens.keys()) {
      approvals.push(
        await origin.wallet(user).writeContract({
          address: token as Hex,
          abi: erc20Abi,
          functionName: "approve",
          args: [origin.settler, maxUint256],
        }),
      );
    }
  }
  await confirm(origin, approvals);
}

async function confirm(chain: SettlerChain, hashes: readonly Hash[]): Promise<void> {
  const receipts = await Promise.all(
    hashes.map((hash) => chain.publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 })),
  );
  const failed = receipts.find((receipt) => receipt.status !== "success");
  if (failed) throw new Error(`demo funding transaction ${failed.transactionHash} on chain ${chain.chainId} reverted`);
}
