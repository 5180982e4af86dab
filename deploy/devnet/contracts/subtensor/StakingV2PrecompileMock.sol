// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SubtensorState} from "./SubtensorState.sol";

/// @title Staking V2 precompile (0x…0805) on the devnet, placed with `anvil_setCode`.
/// @notice Amounts in rao (stake) and nano-alpha (unstake), netuid as uint256, the caller's coldkey is
/// its H160 through Frontier's hashed mapping, as on the chain.
///
/// One deliberate difference: on the chain `addStake` debits the caller's account inside the runtime
/// and takes no `msg.value`. A contract cannot debit an externally owned account, so here the caller
/// must send exactly `amount × 1e9` wei with the call. That keeps every account's `eth_getBalance` and
/// its positions consistent with the transactions in the blocks: the stake's cost is the transaction's
/// value, and an unstake pays the proceeds back as an internal transfer. State address: storage slot 0.
contract StakingV2PrecompileMock {
    SubtensorState internal state;

    function addStake(bytes32 hotkey, uint256 amount, uint256 netuid) external payable {
        state.addStakeFromEvm{value: msg.value}(msg.sender, hotkey, amount, netuid);
    }

    function removeStake(bytes32 hotkey, uint256 amount, uint256 netuid) external {
        state.removeStakeFromEvm(msg.sender, hotkey, amount, netuid);
    }

    function removeStakeFull(bytes32 hotkey, uint256 netuid) external {
        state.removeStakeFullFromEvm(msg.sender, hotkey, netuid);
    }

    function getTotalColdkeyStake(bytes32 coldkey) external view returns (uint256) {
        return state.coldkeyStakeValue(coldkey);
    }

    function getTotalHotkeyStake(bytes32 hotkey) external view returns (uint256) {
        return state.hotkeyStakeValue(hotkey);
    }

    function getStake(bytes32 hotkey, bytes32 coldkey, uint256 netuid) external view returns (uint256) {
        return state.stake(hotkey, coldkey, netuid);
    }

    /// Despite the name, the coldkeys staking to the hotkey on the subnet, as on the chain.
    function getAlphaStakedValidators(bytes32 hotkey, uint256 netuid) external view returns (uint256[] memory) {
        return state.coldkeysStakingTo(hotkey, netuid);
    }

    function getTotalAlphaStaked(bytes32 hotkey, uint256 netuid) external view returns (uint256) {
        return state.totalHotkeyAlpha(hotkey, netuid);
    }

    function getNominatorMinRequiredStake() external view returns (uint256) {
        return state.nominatorMinRequiredStake();
    }

    function getTotalColdkeyStakeOnSubnet(bytes32 coldkey, uint256 netuid) external view returns (uint256) {
        return state.coldkeyStakeValueOnSubnet(coldkey, netuid);
    }
}
