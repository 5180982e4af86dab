import {
  type EvmGrantResult,
  type FaucetAddress,
  FaucetError,
  fundEvmAccount,
  fundNativeAccount,
  type NativeGrantResult,
} from "@platform/devnet";
import type { ChainDescriptor, StackDescriptor } from "./descriptor.js";
import type { FundRequest } from "./fundArgs.js";

/*
 * The devnet faucet (`deploy/local/stack fund`): ETH and test USDC on the stack's anvil chains, TAO
 * on its Subtensor, for an address a developer or a test holds the key of.
 */

export interface FundResult {
  address: FaucetAddress;
  evm: EvmGrantResult[];
  native?: NativeGrantResult;
}

/** The anvil chains a request's ETH and USDC go to: `--chain` (a name or a chain id), or every one. */
export function chainsOf(descriptor: StackDescriptor, chain: string | undefined): ChainDescriptor[] {
  if (chain === undefined) return descriptor.chains;
  const found = descriptor.chains.filter((entry) => entry.name === chain || String(entry.chainId) === chain);
  if (found.length === 0)
    throw new FaucetError(
      "FAUCET_REQUEST_REFUSED",
      `--chain ${chain}: the stack has no such chain; its chains are ${descriptor.chains.map((entry) => `${entry.name} (${entry.chainId})`).join(", ")}`,
    );
  return found;
}

/** Sends what the request asks for, chains side by side; the new balances. */
export async function fundAccount(descriptor: StackDescriptor, request: FundRequest): Promise<FundResult> {
  const { address } = request;
  const wantsEvm = request.eth !== undefined || request.usdc !== undefined;
  const chains = wantsEvm ? chainsOf(descriptor, request.chain) : [];
  const substrate = descriptor.substrate;
  if (request.tao !== undefined && substrate === undefined)
    throw new FaucetError(
      "FAUCET_REQUEST_REFUSED",
      "--tao: this stack runs no native network (Subtensor), so there is no TAO to give",
    );
  if (wantsEvm && address.kind !== "evm")
    throw new FaucetError(
      "FAUCET_REQUEST_REFUSED",
      `${address.native.ss58} has no account on the anvil chains: give an EVM (0x) address`,
    );
  const [evm, native] = await Promise.all([
    Promise.all(
      chains.map((chain) =>
        fundEvmAccount(chain, (address as Extract<FaucetAddress, { kind: "evm" }>).address, {
          ...(request.eth === undefined ? {} : { eth: request.eth }),
          // USDC only where the devnet deployed it: every intent chain has it.
          ...(request.usdc === undefined || chain.tokens.USDC === undefined ? {} : { usdc: request.usdc }),
        }),
      ),
    ),
    request.tao === undefined || substrate === undefined
      ? undefined
      : fundNativeAccount(substrate.rpcUrl, address.native, unitsOf(request.tao, 9), substrate.blockTimeMs),
  ]);
  return { address, evm, ...(native === undefined ? {} : { native }) };
}

/** What `fund` prints: what was added where, and the balance after it. */
export function renderFundResult(result: FundResult): string {
  const { address } = result;
  const lines = [`Funded ${address.kind === "evm" ? address.address : address.native.ss58}`];
  for (const chain of result.evm) {
    const where = `${chain.chain} (${chain.chainId})`.padEnd(22);
    if (chain.eth !== undefined)
      lines.push(
        `  ${where} ETH   +${formatUnits(chain.eth.addedWei, 18)}  balance ${formatUnits(chain.eth.balanceWei, 18)}`,
      );
    if (chain.usdc !== undefined)
      lines.push(
        `  ${where} USDC  +${formatUnits(chain.usdc.added, chain.usdc.decimals)}  balance ${formatUnits(chain.usdc.balance, chain.usdc.decimals)}  (token ${chain.usdc.token})`,
      );
  }
  if (result.native !== undefined) {
    const { native } = result;
    lines.push(
      `  ${"bittensor".padEnd(22)} TAO   +${formatUnits(native.addedRao, 9)}  balance ${formatUnits(native.freeRao, 9)}  (a transfer in block ${native.blockNumber})`,
    );
    if (address.kind === "evm")
      lines.push(
        `  ${"".padEnd(22)} to ${native.account.ss58}, the account Subtensor maps the H160 to (blake2_256("evm:" ++ h160)): its TAO on the network's EVM too`,
      );
  }
  return `${lines.join("\n")}\n`;
}

/** A decimal string of whole units as an integer of the smallest unit (the string is checked by parseFundArgs). */
export function unitsOf(value: string, decimals: number): bigint {
  const [whole, fraction = ""] = value.split(".");
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

/** An integer of the smallest unit as whole units, without trailing zeros ("1000", "0.5"). */
export function formatUnits(value: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const fraction = (value % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${value / scale}${fraction === "" ? "" : `.${fraction}`}`;
}
