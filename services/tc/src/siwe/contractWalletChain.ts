import {
  type ConfiguredChain,
  createRpcQuota,
  isQuotaExceeded,
  toViemChain,
  type UserReadSettings,
  userReadTransport,
} from "@platform/chain";
import { type Address, BaseError, createPublicClient, custom, type EIP1193RequestFn, type Hex } from "viem";
import { verifyHash } from "viem/actions";
import { dependencyUnavailable } from "../acceptErrors.js";

/** What checking a contract wallet's signature needs from its chain. Both throw UNAVAILABLE when the RPC fails. */
export interface ContractWalletChain {
  chainId: number;
  /** Whether the address holds code (a deployed contract, or an EIP-7702 delegation). */
  hasCode(address: Address): Promise<boolean>;
  /**
   * viem's verifyHash on this chain: ERC-1271 for a deployed wallet, the ERC-6492 universal
   * validator (deployless `eth_call`) for a wrapped signature of a wallet not deployed yet.
   */
  verifyHash(address: Address, hash: Hex, signature: Hex): Promise<boolean>;
}

/**
 * The chain a message names, read as users' reads are (`userReadTransport`): through the chain's
 * `preflightRpcUrl` when configured, never sharing the ingestion's client, every request within
 * `settings`' quota (an ERC-6492 check is an `eth_call` with up to 10 KB of the caller's calldata),
 * and retried at most `maxRetries` times. verifyHash answers `false` both for
 * a signature the wallet rejects and for an RPC it could not reach (viem folds a failed `eth_call`
 * into "invalid"), so each verification runs on a client of its own whose transport notes any
 * failure that is not an execution revert; such a failure makes the answer UNAVAILABLE instead of
 * SIWE_SIGNATURE_INVALID, so an RPC outage never refuses a valid signature.
 */
export function contractWalletChain(chain: ConfiguredChain, settings: UserReadSettings): ContractWalletChain {
  const viemChain = toViemChain(chain);
  // Deadline per request from CHAINS_FILE's rpc settings; retries capped by settings.maxRetries.
  const quota = createRpcQuota(chain.chainId, settings);
  const { request } = userReadTransport(chain, quota, settings.maxRetries)({ chain: viemChain });

  const observedClient = () => {
    let failure: unknown;
    const observed: EIP1193RequestFn = async (args) => {
      try {
        return await request(args);
      } catch (error) {
        if (!isExecutionRevert(error)) failure ??= error;
        throw error;
      }
    };
    const client = createPublicClient({
      chain: viemChain,
      transport: custom({ request: observed }, { retryCount: 0 }),
    });
    return { client, failure: () => failure };
  };

  const unreachable = (cause: unknown) =>
    dependencyUnavailable(
      isQuotaExceeded(cause)
        ? `chain ${chain.chainId} is checking too many contract-wallet signatures right now; try again shortly`
        : `the RPC of chain ${chain.chainId} did not answer while checking a contract wallet's signature; try again shortly`,
      cause,
    );

  return {
    chainId: chain.chainId,
    async hasCode(address) {
      const { client } = observedClient();
      let code: Hex | undefined;
      try {
        code = await client.getCode({ address });
      } catch (error) {
        throw unreachable(error);
      }
      return code !== undefined && code !== "0x";
    },
    async verifyHash(address, hash, signature) {
      const { client, failure } = observedClient();
      let valid: boolean;
      try {
        valid = await verifyHash(client, { address, hash, signature });
      } catch (error) {
        throw unreachable(error);
      }
      if (failure() !== undefined) throw unreachable(failure());
      return valid;
    },
  };
}

/** A node's "execution reverted" (JSON-RPC code 3, or a revert message): the wallet's answer, not an outage. */
export function isExecutionRevert(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return (
    error.walk((inner) => {
      const { code, details, message } = inner as { code?: unknown; details?: unknown; message?: unknown };
      return code === 3 || /revert/i.test(`${String(details ?? "")} ${String(message ?? "")}`);
    }) !== null
  );
}
