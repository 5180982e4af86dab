import {
  coldkeyArg as coldkey,
  hotkeyArg as hotkey,
  netuidU256 as netuid,
  returns,
  viewFunction as view,
  writeFunction as write,
} from "./abiBuilders.js";

/**
 * Staking V2 precompile (`0x…0805`): amounts in rao (TAO) and nano-alpha, netuid as uint256 (research
 * data-api §2.4.4). Only the functions the platform reads or the simulator sends are listed.
 *
 * Quirks: `getAlphaStakedValidators` returns the COLDKEYS staking to the hotkey (as uint256 words),
 * despite its name; `getTotalColdkeyStake` values positions by simulated unstake (what a full exit
 * would pay), while `getTotalHotkeyStake` uses α × spot price; `getTotalColdkeyStakeOnSubnet` exists in
 * the Rust code but not in `stakingV2.abi`. The caller's coldkey is its H160 mapped by
 * `evmAddressToAccountId` (`blake2_256("evm:" ‖ h160)`).
 *
 * `addStake` takes the amount in rao as an argument; on the chain the runtime debits the caller's mapped
 * account. A contract cannot debit an EOA, so the devnet mock instead requires `msg.value` to equal
 * `amount × 1e9` wei (see `deploy/devnet/contracts/subtensor`). `removeStake` takes nano-alpha.
 */
export const stakingV2Abi = [
  write("addStake", "payable", [hotkey, { name: "amount", type: "uint256" }, netuid]),
  write("removeStake", "nonpayable", [hotkey, { name: "amount", type: "uint256" }, netuid]),
  write("removeStakeFull", "nonpayable", [hotkey, netuid]),
  view("getTotalColdkeyStake", [coldkey], returns("uint256")),
  view("getTotalHotkeyStake", [hotkey], returns("uint256")),
  view("getStake", [hotkey, coldkey, netuid], returns("uint256")),
  view("getAlphaStakedValidators", [hotkey, netuid], returns("uint256[]")),
  view("getTotalAlphaStaked", [hotkey, netuid], returns("uint256")),
  view("getNominatorMinRequiredStake", [], returns("uint256")),
  view("getTotalColdkeyStakeOnSubnet", [coldkey, netuid], returns("uint256")),
] as const;
