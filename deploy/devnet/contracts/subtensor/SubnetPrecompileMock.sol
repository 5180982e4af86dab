// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SubtensorState} from "./SubtensorState.sol";
import {Hyperparameters} from "./SubtensorTypes.sol";

/// @title Subnet precompile (0x…0803) views on the devnet, placed with `anvil_setCode`.
/// @notice Raw hyperparameter values keyed by `uint16 netuid`; an unknown subnet reads as zeros, as the
/// chain's storage defaults. State address: storage slot 0.
contract SubnetPrecompileMock {
    SubtensorState internal state;

    function getNetworkRegistrationBlock(uint16 netuid) external view returns (uint64) {
        return state.pool(netuid).registrationBlock;
    }

    function getServingRateLimit(uint16 netuid) external view returns (uint64) {
        return state.hyperparametersOf(netuid).servingRateLimit;
    }

    function getMinDifficulty(uint16 netuid) external view returns (uint64) {
        return state.hyperparametersOf(netuid).minDifficulty;
    }

    function getMaxDifficulty(uint16 netuid) external view returns (uint64) {
        return state.hyperparametersOf(netuid).maxDifficulty;
    }

    function getWeightsVersionKey(uint16 netuid) external view returns (uint64) {
        return state.hyperparametersOf(netuid).weightsVersionKey;
    }

    function getWeightsSetRateLimit(uint16 netuid) external view returns (uint64) {
        return state.hyperparametersOf(netuid).weightsSetRateLimit;
    }

    function getAdjustmentAlpha(uint16 netuid) external view returns (uint64) {
        return state.hyperparametersOf(netuid).adjustmentAlpha;
    }

    function getMaxWeightLimit(uint16 netuid) external view returns (uint16) {
        return state.hyperparametersOf(netuid).maxWeightLimit;
    }

    function getImmunityPeriod(uint16 netuid) external view returns (uint16) {
        return state.hyperparametersOf(netuid).immunityPeriod;
    }

    function getMinAllowedWeights(uint16 netuid) external view returns (uint16) {
        return state.hyperparametersOf(netuid).minAllowedWeights;
    }

    function getKappa(uint16 netuid) external view returns (uint16) {
        return state.hyperparametersOf(netuid).kappa;
    }

    function getRho(uint16 netuid) external view returns (uint16) {
        return state.hyperparametersOf(netuid).rho;
    }

    function getAlphaSigmoidSteepness(uint16 netuid) external view returns (uint16) {
        return state.hyperparametersOf(netuid).alphaSigmoidSteepness;
    }

    function getActivityCutoff(uint16 netuid) external view returns (uint16) {
        return state.hyperparametersOf(netuid).activityCutoff;
    }

    function getNetworkRegistrationAllowed(uint16 netuid) external view returns (bool) {
        return state.hyperparametersOf(netuid).networkRegistrationAllowed;
    }

    function getNetworkPowRegistrationAllowed(uint16 netuid) external view returns (bool) {
        return state.hyperparametersOf(netuid).networkPowRegistrationAllowed;
    }

    function getCommitRevealWeightsEnabled(uint16 netuid) external view returns (bool) {
        return state.hyperparametersOf(netuid).commitRevealWeightsEnabled;
    }

    function getLiquidAlphaEnabled(uint16 netuid) external view returns (bool) {
        return state.hyperparametersOf(netuid).liquidAlphaEnabled;
    }

    function getYuma3Enabled(uint16 netuid) external view returns (bool) {
        return state.hyperparametersOf(netuid).yuma3Enabled;
    }

    function getBondsResetEnabled(uint16 netuid) external view returns (bool) {
        return state.hyperparametersOf(netuid).bondsResetEnabled;
    }

    function getMinBurn(uint16 netuid) external view returns (uint64) {
        return state.hyperparametersOf(netuid).minBurn;
    }

    function getMaxBurn(uint16 netuid) external view returns (uint64) {
        return state.hyperparametersOf(netuid).maxBurn;
    }

    function getDifficulty(uint16 netuid) external view returns (uint64) {
        return state.hyperparametersOf(netuid).difficulty;
    }

    function getBondsMovingAverage(uint16 netuid) external view returns (uint64) {
        return state.hyperparametersOf(netuid).bondsMovingAverage;
    }

    function getCommitRevealWeightsInterval(uint16 netuid) external view returns (uint64) {
        return state.hyperparametersOf(netuid).commitRevealWeightsInterval;
    }

    function getAlphaValues(uint16 netuid) external view returns (uint16, uint16) {
        Hyperparameters memory params = state.hyperparametersOf(netuid);
        return (params.alphaLow, params.alphaHigh);
    }
}
