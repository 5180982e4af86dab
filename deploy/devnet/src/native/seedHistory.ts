import { type NativeChain, nativeStorage, readNativeInteger } from "./nativeChain.js";
import type { SeedPool } from "./seedAccounts.js";

/**
 * The only state the seed writes directly (`dev_setStorage`), each what no extrinsic of this runtime
 * can make and a fork of a long-running network would bring: the dev accounts' funds with sudo, the
 * share-pool total genesis leaves out, and the depth of the subnets' pools. Everything else is real
 * signed extrinsics (seedSteps.ts).
 */

export const RAO_PER_TAO = 1_000_000_000n;
/** What each dev account is given: far more than the seed and a long simulator run spend. */
const DEV_FUNDS_RAO = 1_000_000n * RAO_PER_TAO;

/**
 * The dev accounts' balances (raonet's genesis gives them nothing) and the sudo key (raonet's has no
 * known seed). Nonces are kept, so a second seed of the same chain does not replay old nonces.
 */
export async function fundDevAccounts(
  chain: NativeChain,
  devAddresses: readonly string[],
  sudo: string,
): Promise<void> {
  const { api } = chain;
  const entries = [];
  let balancesIssuance = await readNativeInteger(api, "balances", "totalIssuance");
  for (const address of devAddresses) {
    const stored = (await nativeStorage(api, "system", "account")(address)).toJSON() as {
      nonce?: number;
      data?: { free?: number | string; reserved?: number | string };
    };
    balancesIssuance += DEV_FUNDS_RAO - BigInt(stored.data?.free ?? 0) - BigInt(stored.data?.reserved ?? 0);
    entries.push([[address], { nonce: stored.nonce ?? 0, providers: 1, data: { free: DEV_FUNDS_RAO.toString() } }]);
  }
  // The funds are written straight into accounts, so the issuances are set to match: Balances' is
  // the TAO in accounts, Subtensor's that plus what is staked and locked (raonet's genesis leaves it
  // at 0, which would make the network's free supply negative). The runtime keeps both from here on.
  let locked = 0n;
  for (const netuid of await netuidsOf(chain))
    locked += await readNativeInteger(api, "subtensorModule", "subnetLocked", netuid);
  const subtensorIssuance = balancesIssuance + (await readNativeInteger(api, "subtensorModule", "totalStake")) + locked;
  await chain.rpc("dev_setStorage", [
    {
      System: { Account: entries },
      Balances: { TotalIssuance: balancesIssuance.toString() },
      SubtensorModule: { TotalIssuance: subtensorIssuance.toString() },
      Sudo: { Key: sudo },
    },
  ]);
}

/**
 * Gives pools the reserves a network's history leaves them: on Finney, the stake converted at the
 * dynamic-TAO launch and months of emission and trading; here a registration starts a pool at 1 rao
 * against 1 nano-alpha, and no extrinsic adds to both sides (a stake buys alpha out of the pool). The
 * TAO is stake that left accounts in the past, so `TotalStake` and Subtensor's `TotalIssuance` grow
 * by it and Balances' issuance does not; the alpha in the pool is nobody's, so `SubnetAlphaOut` and
 * every position stay as they are.
 */
export async function writePoolHistory(chain: NativeChain, pools: ReadonlyMap<number, SeedPool>): Promise<void> {
  const { api } = chain;
  const tao: [[number], string][] = [];
  const alphaIn: [[number], string][] = [];
  let added = 0n;
  for (const [netuid, pool] of pools) {
    const poolRao = pool.tao * RAO_PER_TAO;
    added += poolRao - (await readNativeInteger(api, "subtensorModule", "subnetTAO", netuid));
    tao.push([[netuid], poolRao.toString()]);
    alphaIn.push([[netuid], (poolRao * pool.alphaPerTao).toString()]);
  }
  const [totalStake, issuance] = await Promise.all([
    readNativeInteger(api, "subtensorModule", "totalStake"),
    readNativeInteger(api, "subtensorModule", "totalIssuance"),
  ]);
  await chain.rpc("dev_setStorage", [
    {
      SubtensorModule: {
        SubnetTAO: tao,
        SubnetAlphaIn: alphaIn,
        TotalStake: (totalStake + added).toString(),
        TotalIssuance: (issuance + added).toString(),
      },
    },
  ]);
}

/**
 * Genesis gives subnet 1's owner a position (`Alpha`: 1 alpha of shares on its own hotkey, with
 * `TotalHotkeyAlpha` 1 alpha) but no `TotalHotkeyShares`, so the runtime values the position at 0,
 * and the first stake anyone adds to that hotkey bootstraps the pool as if it were empty: the
 * genesis shares then claim a multiple of the pool (the stack showed 640 alpha held against a pool
 * of 177). Each pool's total is set to the sum of its shares, as the runtime keeps it for any pool
 * it made; a pool whose total is right is left alone.
 */
export async function completeSharePools(chain: NativeChain): Promise<number> {
  const entries = async (item: string) =>
    (
      (await nativeStorage(chain.api, "subtensorModule", item).entries()) as unknown as [
        { args: { toString(): string }[] },
        { toString(): string },
      ][]
    ).map(([key, value]) => ({ args: key.args.map((arg) => arg.toString()), value: BigInt(value.toString()) }));
  const sums = new Map<string, { hotkey: string; netuid: number; shares: bigint }>();
  for (const { args, value } of await entries("alpha")) {
    const [hotkey, , netuid] = args as [string, string, string];
    const pool = sums.get(`${hotkey}:${netuid}`) ?? { hotkey, netuid: Number(netuid), shares: 0n };
    pool.shares += value;
    sums.set(`${hotkey}:${netuid}`, pool);
  }
  const totals = new Map(
    (await entries("totalHotkeyShares")).map(({ args, value }) => [`${args[0]}:${args[1]}`, value]),
  );
  const fixes = [...sums].filter(([key, pool]) => totals.get(key) !== pool.shares).map(([, pool]) => pool);
  if (fixes.length === 0) return 0;
  const values = {
    SubtensorModule: {
      TotalHotkeyShares: fixes.map(({ hotkey, netuid, shares }) => [[hotkey, netuid], shares.toString()]),
    },
  };
  // Written into every block so far, genesis included, as if the chain spec had it: an indexer
  // reads genesis whole and then follows events, and no event will ever name this pool's total.
  const head = (await chain.api.rpc.chain.getHeader()).number.toNumber();
  for (let number = 0; number <= head; number++)
    await chain.rpc("dev_setStorage", [values, (await chain.api.rpc.chain.getBlockHash(number)).toHex()]);
  return fixes.length;
}

async function netuidsOf(chain: NativeChain): Promise<number[]> {
  const keys = (await nativeStorage(chain.api, "subtensorModule", "networksAdded").keys()) as unknown as {
    args: [{ toString(): string }];
  }[];
  return keys.map((key) => Number(key.args[0].toString()));
}
