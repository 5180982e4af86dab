import { type FaucetAddress, FaucetAddressError, parseFaucetAddress } from "@platform/devnet";
import { FUND_DEFAULTS } from "./fundUsage.js";

/** `deploy/local/stack fund <address> [--usdc N] [--eth N] [--tao N] [--chain NAME|ID]`, parsed. */
export interface FundRequest {
  address: FaucetAddress;
  /** Whole units as decimal strings ("1000", "0.5"); absent: not asked for. */
  usdc?: string;
  eth?: string;
  tao?: string;
  /** An anvil chain's name or chain id: ETH and USDC there only; absent: on every anvil chain. */
  chain?: string;
}

export type FundArgs = { ok: true; request: FundRequest } | { ok: false; error: string };

/** Decimals each amount may carry; USDC's are the devnet token's (the mint checks them against the contract). */
const DECIMALS = { usdc: 6, eth: 18, tao: 9 } as const;
/** Far beyond any test's need, and well inside what the chains hold. */
const MAX_UNITS = 1_000_000_000;

/**
 * Parses the arguments after `fund`. Nothing is sent: a wrong address, amount or option is an
 * error naming it. An EVM address gets USDC and ETH by default, an SS58 address TAO (it has no
 * account on the anvil chains); TAO to an EVM address goes to the account Subtensor maps it to.
 */
export function parseFundArgs(args: readonly string[]): FundArgs {
  const positional: string[] = [];
  const amounts: Partial<Record<keyof typeof DECIMALS, string>> = {};
  let chain: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    if (!flag.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const value = inline ?? args[++index];
    if (value === undefined || value === "") return fail(`${flag} needs a value`);
    const name = flag.slice(2);
    if (name === "chain") {
      if (chain !== undefined) return fail("--chain is given twice");
      chain = value;
    } else if (name === "usdc" || name === "eth" || name === "tao") {
      if (amounts[name] !== undefined) return fail(`${flag} is given twice`);
      const problem = amountProblem(value, DECIMALS[name]);
      if (problem !== undefined) return fail(`${flag} ${value}: ${problem}`);
      amounts[name] = value;
    } else return fail(`unknown option ${flag}`);
  }
  if (positional.length === 0) return fail("the address to fund is missing");
  if (positional.length > 1) return fail(`one address only, got ${positional.join(", ")}`);
  let address: FaucetAddress;
  try {
    address = parseFaucetAddress(positional[0]!);
  } catch (error) {
    if (error instanceof FaucetAddressError) return fail(error.message);
    throw error;
  }
  const asked = Object.keys(amounts).length > 0;
  if (address.kind === "native") {
    const evmOnly = (["usdc", "eth"] as const).filter((name) => amounts[name] !== undefined);
    if (evmOnly.length > 0 || chain !== undefined)
      return fail(
        `${positional[0]} is a Subtensor account, which has nothing on the anvil chains: ${[...evmOnly.map((name) => `--${name}`), ...(chain === undefined ? [] : ["--chain"])].join(", ")} need an EVM (0x) address`,
      );
    return { ok: true, request: { address, tao: amounts.tao ?? FUND_DEFAULTS.native.tao } };
  }
  return {
    ok: true,
    request: {
      address,
      ...(asked ? amounts : FUND_DEFAULTS.evm),
      ...(chain === undefined ? {} : { chain }),
    },
  };
}

/** Why `value` is not an amount of whole units with at most `decimals` decimals, if it is not. */
function amountProblem(value: string, decimals: number): string | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (match === null) return "not a decimal number of whole units (e.g. 1000 or 0.5)";
  if ((match[2]?.length ?? 0) > decimals) return `at most ${decimals} decimals`;
  if (/^[0.]+$/.test(value)) return "must be more than 0";
  if (Number(value) > MAX_UNITS) return `at most ${MAX_UNITS.toLocaleString("en-US")}`;
  return undefined;
}

const fail = (error: string): FundArgs => ({ ok: false, error });
