// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SubtensorState} from "./SubtensorState.sol";
import {Pool} from "./SubtensorTypes.sol";

/// @title Alpha precompile (0x…0808) on the devnet, placed with `anvil_setCode`.
/// @notice The same functions and units as the chain: prices scaled by 1e18 (9 real decimals), pool
/// reserves as raw u64 rao / nano-alpha, emissions of the last block. State is in `SubtensorState`;
/// its address is storage slot 0, written with `anvil_setStorageAt` because setCode runs no constructor.
contract AlphaPrecompileMock {
    SubtensorState internal state;

    function getAlphaPrice(uint16 netuid) external view returns (uint256) {
        return state.alphaPrice(netuid);
    }

    function getMovingAlphaPrice(uint16 netuid) external view returns (uint256) {
        return state.movingAlphaPrice(netuid);
    }

    function getTaoInPool(uint16 netuid) external view returns (uint64) {
        return state.pool(netuid).taoIn;
    }

    function getAlphaInPool(uint16 netuid) external view returns (uint64) {
        return state.pool(netuid).alphaIn;
    }

    function getAlphaOutPool(uint16 netuid) external view returns (uint64) {
        return state.pool(netuid).alphaOut;
    }

    function getAlphaIssuance(uint16 netuid) external view returns (uint64) {
        Pool memory pool = state.pool(netuid);
        return pool.alphaIn + pool.alphaOut;
    }

    function getTaoWeight() external view returns (uint256) {
        return state.taoWeight();
    }

    function getCKBurn() external view returns (uint256) {
        return state.ckBurn();
    }

    function simSwapTaoForAlpha(uint16 netuid, uint64 tao) external view returns (uint256) {
        return state.simSwapTaoForAlpha(netuid, tao);
    }

    function simSwapAlphaForTao(uint16 netuid, uint64 alpha) external view returns (uint256) {
        return state.simSwapAlphaForTao(netuid, alpha);
    }

    function getSubnetMechanism(uint16 netuid) external view returns (uint16) {
        return state.pool(netuid).mechanism;
    }

    function getRootNetuid() external view returns (uint16) {
        return state.ROOT_NETUID();
    }

    function getEMAPriceHalvingBlocks(uint16 netuid) external view returns (uint64) {
        return state.pool(netuid).emaPriceHalvingBlocks;
    }

    function getSubnetVolume(uint16 netuid) external view returns (uint256) {
        return state.pool(netuid).volume;
    }

    function getTaoInEmission(uint16 netuid) external view returns (uint256) {
        return state.pool(netuid).taoInEmission;
    }

    function getAlphaInEmission(uint16 netuid) external view returns (uint256) {
        return state.pool(netuid).alphaInEmission;
    }

    function getAlphaOutEmission(uint16 netuid) external view returns (uint256) {
        return state.pool(netuid).alphaOutEmission;
    }

    function getSumAlphaPrice() external view returns (uint256) {
        return state.sumAlphaPrice();
    }
}
