// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

// The precompile addresses the mocks are placed at with `anvil_setCode` (`H160::from_low_u64_be(INDEX)`).
address constant METAGRAPH_PRECOMPILE = 0x0000000000000000000000000000000000000802;
address constant SUBNET_PRECOMPILE = 0x0000000000000000000000000000000000000803;
address constant STAKING_V2_PRECOMPILE = 0x0000000000000000000000000000000000000805;
address constant ALPHA_PRECOMPILE = 0x0000000000000000000000000000000000000808;

// 1 rao = 1e9 wei: EVM balances have 18 decimals, the chain's TAO 9.
uint256 constant WEI_PER_RAO = 1e9;

/// `getAxon` result, field names as in `metagraph.sol`.
struct AxonInfo {
    uint64 block;
    uint32 version;
    uint128 ip;
    uint16 port;
    uint8 ip_type;
    uint8 protocol;
}

/// One subnet's pool and emission state, in the chain's units: rao for TAO, nano-alpha for alpha.
struct Pool {
    bool exists;
    /// 0 = stable (root: price 1, alpha is TAO), 1 = dynamic (price = taoIn / alphaIn).
    uint16 mechanism;
    uint64 registrationBlock;
    /// `SubnetTAO`
    uint64 taoIn;
    /// `SubnetAlphaIn`
    uint64 alphaIn;
    /// `SubnetAlphaOut`: alpha held in stake positions.
    uint64 alphaOut;
    /// `SubnetMovingPrice`, TAO per alpha truncated to 9 decimals (the precompile scales it by 1e9 again).
    uint64 movingPrice9;
    uint64 emaPriceHalvingBlocks;
    /// `SubnetVolume`: cumulative TAO swapped in and out, rao.
    uint256 volume;
    /// The last block's injections: `SubnetTaoInEmission`, `SubnetAlphaInEmission`, `SubnetAlphaOutEmission`.
    uint64 taoInEmission;
    uint64 alphaInEmission;
    uint64 alphaOutEmission;
}

/// A UID's metagraph entry. Scores are u16 ratios over 65535; emission is nano-alpha per epoch.
struct Neuron {
    bytes32 hotkey;
    bytes32 coldkey;
    uint16 consensus;
    uint16 incentive;
    uint16 dividends;
    uint16 vtrust;
    uint64 emission;
    bool validatorPermit;
    bool active;
    /// Block number of the last weights update.
    uint64 lastUpdate;
    uint64 registrationBlock;
    AxonInfo axon;
}

/// The subnet precompile's hyperparameter views, raw chain values.
struct Hyperparameters {
    uint64 servingRateLimit;
    uint64 minDifficulty;
    uint64 maxDifficulty;
    uint64 weightsVersionKey;
    uint64 weightsSetRateLimit;
    uint64 adjustmentAlpha;
    uint16 maxWeightLimit;
    uint16 immunityPeriod;
    uint16 minAllowedWeights;
    uint16 kappa;
    uint16 rho;
    uint16 alphaSigmoidSteepness;
    uint16 activityCutoff;
    bool networkRegistrationAllowed;
    bool networkPowRegistrationAllowed;
    bool commitRevealWeightsEnabled;
    bool liquidAlphaEnabled;
    bool yuma3Enabled;
    bool bondsResetEnabled;
    uint64 minBurn;
    uint64 maxBurn;
    uint64 difficulty;
    uint64 bondsMovingAverage;
    uint64 commitRevealWeightsInterval;
    uint16 alphaLow;
    uint16 alphaHigh;
}
