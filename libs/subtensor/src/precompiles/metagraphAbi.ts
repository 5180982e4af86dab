import { netuidU16 as netuid, returns, uidU16 as uid, viewFunction as view } from "./abiBuilders.js";

/** `getAxon` result, the `AxonInfo` struct of `metagraph.sol`. */
const axonInfo = {
  name: "",
  type: "tuple",
  components: [
    { name: "block", type: "uint64" },
    { name: "version", type: "uint32" },
    { name: "ip", type: "uint128" },
    { name: "port", type: "uint16" },
    { name: "ip_type", type: "uint8" },
    { name: "protocol", type: "uint8" },
  ],
} as const;

/**
 * Metagraph precompile (`0x…0802`), every function `view` and keyed by `(netuid, uid)` except
 * `getUidCount` (research data-api §2.4.3).
 *
 * Quirks: `getStake` is the hotkey's stake over ALL subnets valued in rao (α × spot price), not its α on
 * this subnet; `getRank` and `getTrust` are deprecated and always 0; consensus, incentive, dividends and
 * vtrust are u16 to divide by 65535 (`formatU16Ratio`); `getEmission` is nano-α per epoch;
 * `getLastUpdate` is a block number; hotkey and coldkey are 32-byte public keys.
 */
export const metagraphAbi = [
  view("getUidCount", [netuid], returns("uint16")),
  view("getStake", [netuid, uid], returns("uint64")),
  view("getRank", [netuid, uid], returns("uint16")),
  view("getTrust", [netuid, uid], returns("uint16")),
  view("getConsensus", [netuid, uid], returns("uint16")),
  view("getIncentive", [netuid, uid], returns("uint16")),
  view("getDividends", [netuid, uid], returns("uint16")),
  view("getEmission", [netuid, uid], returns("uint64")),
  view("getVtrust", [netuid, uid], returns("uint16")),
  view("getValidatorStatus", [netuid, uid], returns("bool")),
  view("getLastUpdate", [netuid, uid], returns("uint64")),
  view("getIsActive", [netuid, uid], returns("bool")),
  view("getAxon", [netuid, uid], [axonInfo]),
  view("getHotkey", [netuid, uid], returns("bytes32")),
  view("getColdkey", [netuid, uid], returns("bytes32")),
] as const;
