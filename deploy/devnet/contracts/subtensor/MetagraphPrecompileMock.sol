// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SubtensorState} from "./SubtensorState.sol";
import {AxonInfo} from "./SubtensorTypes.sol";

/// @title Metagraph precompile (0x…0802) on the devnet, placed with `anvil_setCode`.
/// @notice Quirks kept from the chain: `getStake` is the hotkey's stake on every subnet valued in rao,
/// `getRank` and `getTrust` are always 0, scores are u16 over 65535. State address: storage slot 0.
contract MetagraphPrecompileMock {
    SubtensorState internal state;

    function getUidCount(uint16 netuid) external view returns (uint16) {
        return state.neuronCount(netuid);
    }

    function getStake(uint16 netuid, uint16 uid) external view returns (uint64) {
        bytes32 hotkey = state.neuron(netuid, uid).hotkey;
        return hotkey == bytes32(0) ? 0 : uint64(state.hotkeyStakeValue(hotkey));
    }

    function getRank(uint16, uint16) external view returns (uint16) {
        return state.DEPRECATED_SCORE();
    }

    function getTrust(uint16, uint16) external view returns (uint16) {
        return state.DEPRECATED_SCORE();
    }

    function getConsensus(uint16 netuid, uint16 uid) external view returns (uint16) {
        return state.neuron(netuid, uid).consensus;
    }

    function getIncentive(uint16 netuid, uint16 uid) external view returns (uint16) {
        return state.neuron(netuid, uid).incentive;
    }

    function getDividends(uint16 netuid, uint16 uid) external view returns (uint16) {
        return state.neuron(netuid, uid).dividends;
    }

    function getEmission(uint16 netuid, uint16 uid) external view returns (uint64) {
        return state.neuron(netuid, uid).emission;
    }

    function getVtrust(uint16 netuid, uint16 uid) external view returns (uint16) {
        return state.neuron(netuid, uid).vtrust;
    }

    function getValidatorStatus(uint16 netuid, uint16 uid) external view returns (bool) {
        return state.neuron(netuid, uid).validatorPermit;
    }

    function getLastUpdate(uint16 netuid, uint16 uid) external view returns (uint64) {
        return state.neuron(netuid, uid).lastUpdate;
    }

    function getIsActive(uint16 netuid, uint16 uid) external view returns (bool) {
        return state.neuron(netuid, uid).active;
    }

    function getAxon(uint16 netuid, uint16 uid) external view returns (AxonInfo memory) {
        return state.neuron(netuid, uid).axon;
    }

    function getHotkey(uint16 netuid, uint16 uid) external view returns (bytes32) {
        return state.neuron(netuid, uid).hotkey;
    }

    function getColdkey(uint16 netuid, uint16 uid) external view returns (bytes32) {
        return state.neuron(netuid, uid).coldkey;
    }
}
