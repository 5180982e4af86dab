/*
 * The faucet's usage and defaults, apart from its parser (which loads the chains' libraries), so the
 * stack's summary can show them without loading those.
 */

export const FUND_USAGE =
  "usage: deploy/local/stack fund <0x address | SS58 address> [--usdc N] [--eth N] [--tao N] [--chain NAME|ID]";

/** What a bare `fund <address>` gives: enough to quote, approve, open and pay gas for many intents. */
export const FUND_DEFAULTS = { evm: { usdc: "1000", eth: "10" }, native: { tao: "100" } } as const;
