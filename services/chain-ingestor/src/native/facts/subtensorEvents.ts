/**
 * What a SubtensorModule event changes, for the readers that bound a block's reads by its events.
 * A reader that finds no answer for an event (an event left out here, or its field left out)
 * cannot bound what it changed and reads everything again: a wasted read costs a little, a missed
 * change would stand until the next full read.
 */
export interface SubtensorEventEffect {
  /**
   * On the subnet snapshots (subnetChanges.ts): a subnet's settings or its neurons (the event's
   * first field is the netuid), a stake, what the metagraphs show of a hotkey (the field at
   * `hotkeyField`) or of a coldkey's hotkeys, or nothing.
   */
  subnets?: "settings" | "neurons" | "stake" | "coldkey" | "nothing" | { hotkeyField: number };
  /** On positions (holders.ts): a stake, which the block's stake touches bound, or nothing. */
  positions?: "stake" | "nothing";
}

/** The one list of SubtensorModule event names the native source understands. */
export const SUBTENSOR_EVENTS: ReadonlyMap<string, SubtensorEventEffect> = new Map(
  Object.entries({
    ActivityCutoffSet: { subnets: "settings", positions: "nothing" },
    AdjustmentAlphaSet: { subnets: "settings", positions: "nothing" },
    AdjustmentIntervalSet: { subnets: "settings", positions: "nothing" },
    AlphaSigmoidSteepnessSet: { subnets: "settings" },
    ArbitrationPeriodExtended: { subnets: "nothing", positions: "nothing" },
    AxonServed: { subnets: "neurons", positions: "nothing" },
    BondsMovingAverageSet: { subnets: "settings", positions: "nothing" },
    BulkNeuronsRegistered: { subnets: "neurons", positions: "nothing" },
    BurnSet: { subnets: "settings", positions: "nothing" },
    ChainIdentitySet: { subnets: "coldkey", positions: "nothing" },
    ChildKeyTakeSet: { subnets: { hotkeyField: 0 }, positions: "nothing" },
    ColdkeySwapScheduleDurationSet: { subnets: "nothing", positions: "nothing" },
    ColdkeySwapScheduled: { subnets: "nothing", positions: "nothing" },
    CommitRevealEnabled: { subnets: "settings", positions: "nothing" },
    DefaultTakeSet: { positions: "nothing" },
    DelegateAdded: { subnets: { hotkeyField: 1 }, positions: "nothing" },
    DifficultySet: { subnets: "settings", positions: "nothing" },
    DissolveNetworkScheduleDurationSet: { subnets: "nothing", positions: "nothing" },
    EmissionValuesSet: { subnets: "nothing", positions: "nothing" },
    Faucet: { subnets: "nothing" },
    FirstEmissionBlockNumberSet: { positions: "nothing" },
    ImmunityPeriodSet: { subnets: "settings", positions: "nothing" },
    KappaSet: { subnets: "settings", positions: "nothing" },
    LiquidAlphaEnabled: { subnets: "settings" },
    MaxAllowedUidsSet: { subnets: "settings", positions: "nothing" },
    MaxAllowedValidatorsSet: { subnets: "settings", positions: "nothing" },
    MaxBurnSet: { subnets: "settings", positions: "nothing" },
    MaxChildKeyTakeSet: { subnets: "nothing", positions: "nothing" },
    MaxDelegateTakeSet: { subnets: "nothing", positions: "nothing" },
    MaxDifficultySet: { subnets: "settings", positions: "nothing" },
    MaxRegistrationsPerBlockSet: { subnets: "settings", positions: "nothing" },
    MaxWeightLimitSet: { subnets: "settings", positions: "nothing" },
    MechanismAdded: { positions: "nothing" },
    MinAllowedWeightSet: { subnets: "settings", positions: "nothing" },
    MinBurnSet: { subnets: "settings", positions: "nothing" },
    MinChildKeyTakeSet: { subnets: "nothing", positions: "nothing" },
    MinDelegateTakeSet: { subnets: "nothing", positions: "nothing" },
    MinDifficultySet: { subnets: "settings", positions: "nothing" },
    NetworkActivated: { subnets: "settings", positions: "nothing" },
    NetworkAdded: { subnets: "settings", positions: "nothing" },
    NetworkImmunityPeriodSet: { subnets: "nothing", positions: "nothing" },
    NetworkLockCostReductionIntervalSet: { subnets: "nothing", positions: "nothing" },
    NetworkMaxStakeSet: { subnets: "settings", positions: "nothing" },
    NetworkMinLockCostSet: { subnets: "nothing", positions: "nothing" },
    NetworkRateLimitSet: { subnets: "nothing", positions: "nothing" },
    NetworkRemoved: { subnets: "nothing", positions: "nothing" },
    NeuronRegistered: { subnets: "neurons", positions: "nothing" },
    OwnerPaymentDistributed: { subnets: "nothing" },
    PowRegistrationAllowed: { subnets: "settings", positions: "nothing" },
    PrometheusServed: { subnets: "nothing", positions: "nothing" },
    RAORecycledForRegistrationSet: { subnets: "settings", positions: "nothing" },
    RegistrationAllowed: { subnets: "settings", positions: "nothing" },
    RegistrationPerIntervalSet: { subnets: "settings", positions: "nothing" },
    RhoSet: { subnets: "settings", positions: "nothing" },
    ScalingLawPowerSet: { subnets: "settings", positions: "nothing" },
    SenateAdjusted: { subnets: "nothing", positions: "nothing" },
    SenateRequiredStakePercentSet: { subnets: "nothing", positions: "nothing" },
    ServingRateLimitSet: { subnets: "settings", positions: "nothing" },
    SetChildren: { subnets: { hotkeyField: 0 }, positions: "nothing" },
    StakeAdded: { subnets: "stake", positions: "stake" },
    StakeMoved: { subnets: "stake", positions: "stake" },
    StakeRemoved: { subnets: "stake", positions: "stake" },
    SubnetConverted: { subnets: "settings" },
    SubnetIdentityRemoved: { subnets: "settings", positions: "nothing" },
    SubnetIdentitySet: { subnets: "settings", positions: "nothing" },
    SubnetLimitSet: { subnets: "nothing", positions: "nothing" },
    SubnetOwnerCutSet: { subnets: "nothing", positions: "nothing" },
    Sudid: { subnets: "nothing", positions: "nothing" },
    TakeDecreased: { subnets: { hotkeyField: 1 }, positions: "nothing" },
    TakeIncreased: { subnets: { hotkeyField: 1 }, positions: "nothing" },
    TargetStakesPerIntervalSet: { subnets: "nothing", positions: "nothing" },
    TempoSet: { subnets: "settings", positions: "nothing" },
    TransferToggle: { subnets: "settings", positions: "nothing" },
    TxChildKeyTakeRateLimitSet: { subnets: "nothing", positions: "nothing" },
    TxDelegateTakeRateLimitSet: { subnets: "nothing", positions: "nothing" },
    TxRateLimitSet: { subnets: "nothing", positions: "nothing" },
    ValidatorPruneLenSet: { subnets: "settings", positions: "nothing" },
    WeightsBatchRevealed: { subnets: "nothing", positions: "nothing" },
    WeightsCommitted: { subnets: "nothing", positions: "nothing" },
    WeightsMinStake: { subnets: "nothing", positions: "nothing" },
    WeightsRevealed: { subnets: "nothing", positions: "nothing" },
    WeightsSet: { subnets: "neurons", positions: "nothing" },
    WeightsSetRateLimitSet: { subnets: "settings", positions: "nothing" },
    WeightsVersionKeySet: { subnets: "settings", positions: "nothing" },
    Yuma3EnableToggled: { subnets: "settings", positions: "nothing" },
  } satisfies Record<string, SubtensorEventEffect>),
);
