import { type AsOf, Finality, Interval } from "@platform/proto/common/v1/common";
import {
  type AccountId,
  Direction,
  HolderCoverage,
  PoolMechanism,
  TransactionSource,
  TransactionType,
} from "@platform/proto/common/v1/network";
import {
  type GetBalanceHistoryResponse,
  type GetBalanceLatestResponse,
  type ListTransactionsResponse,
  Valuation,
} from "@platform/proto/data/v1/accounts";
import {
  type GetNetworkStatsHistoryResponse,
  type GetNetworkStatsLatestResponse,
  type GetPriceHistoryResponse,
  type GetPriceLatestResponse,
  type GetSubnetEmissionsHistoryResponse,
  type GetSubnetEmissionsLatestResponse,
  type GetSubnetPoolsHistoryResponse,
  type GetSubnetPoolsLatestResponse,
  type GetSwapEstimateResponse,
  SwapDirection,
} from "@platform/proto/data/v1/market";
import type {
  GetHoldersTopResponse,
  GetSubnetsHistoryResponse,
  GetSubnetsLatestResponse,
  GetValidatorsLatestResponse,
} from "@platform/proto/data/v1/subnets";
import { accountFromEvmAddress } from "@platform/subtensor";

/**
 * Backend answers, one per Data API method, in their proto form. The OpenAPI examples are these
 * rendered by the routes' own render functions (so an example is exactly what the route would
 * answer), and the route tests serve them from fake backends.
 */

export const ALICE: AccountId = {
  ss58: "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY",
  publicKey: "0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d",
};
export const BOB: AccountId = {
  ss58: "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty",
  publicKey: "0x8eaf04151687736326c9fea17e25fc5287613693c912909cb226aa4794f26a48",
};
export const CHARLIE: AccountId = {
  ss58: "5FLSigC9HGRKVhB9FiEo4Y3koPsNmBmLJbpXg2mp1hXcS59Y",
  publicKey: "0x90b5ab205c6974c9ea841be688864633dc9ca8a357843eeacf2314649965fe22",
};
/** An account known by its EVM address: the account id HashedAddressMapping gives it. */
export const EVM_ACCOUNT: AccountId = accountFromEvmAddress("0x52908400098527886E0F7030069857D2E4169EE7");

/** An opaque cursor as a backend would hand out. */
export const EXAMPLE_CURSOR = "eyJ2IjoxLCJrIjpbNzAxMjM0NSwxMiwzMV19";

export const EXAMPLE_AS_OF: AsOf = {
  chainId: "945",
  blockNumber: "7012345",
  blockHash: "0x5c0e3f1e9a7b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d",
  timestamp: "2026-08-20T12:00:00.000Z",
  finality: Finality.FINALITY_LATEST,
};

export const balanceLatestExample: GetBalanceLatestResponse = {
  asOf: EXAMPLE_AS_OF,
  address: ALICE,
  balanceFreeRao: "19349963",
  balanceReservedRao: "93000000",
  balanceFrozenRao: "0",
  balanceStakedRao: "101074319189",
  balanceStakedRootRao: "100074319189",
  balanceStakedAlphaValueRao: "1000000000",
  balanceTotalRao: "101186669152",
  valuation: Valuation.VALUATION_SPOT,
  priceUsd: "322.12",
  balanceTotalUsd: "32594.25",
  positionsCount: 2,
  positions: [
    {
      netuid: 0,
      hotkey: BOB,
      hotkeyName: "Bob's validator",
      stakeNalpha: "100074319189",
      priceTao: "1",
      valueRao: "100074319189",
    },
    { netuid: 64, hotkey: CHARLIE, stakeNalpha: "254600000000", priceTao: "0.003927757700", valueRao: "1000000000" },
  ],
};

export const balanceHistoryExample: GetBalanceHistoryResponse = {
  asOf: EXAMPLE_AS_OF,
  address: ALICE,
  interval: Interval.INTERVAL_ONE_DAY,
  points: [
    {
      bucketStart: "2026-08-19T00:00:00.000Z",
      blockNumber: "7011999",
      timestamp: "2026-08-19T23:59:48.000Z",
      balanceFreeRao: "19349963",
      balanceReservedRao: "93000000",
      balanceStakedRao: "101074319189",
      balanceStakedRootRao: "100074319189",
      balanceStakedAlphaValueRao: "1000000000",
      balanceTotalRao: "101186669152",
      priceUsd: "320.50",
      balanceTotalUsd: "32430.33",
      changeTotalRao: "-1500",
      positions: [
        { netuid: 0, alphaNalpha: "100074319189", rewardAlphaNalpha: "1843200" },
        { netuid: 64, alphaNalpha: "254600000000", rewardAlphaNalpha: "912000000" },
      ],
      rewardRao: "3427200",
      rewardBlocks: 2,
    },
  ],
  page: { limit: 1, nextCursor: EXAMPLE_CURSOR, hasMore: true },
};

export const transactionsExample: ListTransactionsResponse = {
  asOf: EXAMPLE_AS_OF,
  address: ALICE,
  transactions: [
    {
      id: "7012345-0012-0031",
      type: TransactionType.TRANSACTION_TYPE_STAKE_ADD,
      direction: Direction.DIRECTION_OUT,
      success: true,
      blockNumber: "7012345",
      timestamp: "2026-08-20T12:00:00.000Z",
      extrinsicId: "7012345-0012",
      extrinsicHash: "0x1f0e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
      from: ALICE,
      to: CHARLIE,
      amountRao: "1000000000",
      feeRao: "1301638",
      netuid: 64,
      hotkey: CHARLIE,
      alphaNalpha: "254600000000",
      effectivePriceTao: "0.003927757700",
      slippage: "0.0015",
      source: TransactionSource.TRANSACTION_SOURCE_SUBSTRATE_EVENT,
      eventName: "SubtensorModule.StakeAdded",
    },
    {
      id: "7012300-0003-0007",
      type: TransactionType.TRANSACTION_TYPE_TRANSFER,
      direction: Direction.DIRECTION_IN,
      success: true,
      blockNumber: "7012300",
      timestamp: "2026-08-20T11:51:00.000Z",
      evmTxHash: "0x9a8b7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f30211203f4e5d6c7b8a9",
      from: EVM_ACCOUNT,
      to: ALICE,
      amountRao: "5000000000",
      source: TransactionSource.TRANSACTION_SOURCE_EVM_TX,
    },
    {
      id: `7012296-reward-64-${CHARLIE.publicKey}`,
      type: TransactionType.TRANSACTION_TYPE_REWARD,
      direction: Direction.DIRECTION_IN,
      success: true,
      blockNumber: "7012296",
      blockHash: "0x3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f01f0e2d",
      timestamp: "2026-08-20T11:50:12.000Z",
      to: ALICE,
      amountRao: "3582000",
      netuid: 64,
      hotkey: CHARLIE,
      alphaNalpha: "912000000",
      source: TransactionSource.TRANSACTION_SOURCE_STORAGE,
    },
  ],
  page: { limit: 3, nextCursor: EXAMPLE_CURSOR, hasMore: true },
};

export const priceLatestExample: GetPriceLatestResponse = {
  asOf: EXAMPLE_AS_OF,
  symbol: "TAO",
  vs: "usd",
  price: "322.12",
  priceChange1hPct: "0.41",
  priceChange24hPct: "-2.15",
  priceChange7dPct: "5.03",
  volume24hUsd: "95120334.10",
  marketCapUsd: "3061140000.00",
  fullyDilutedMarketCapUsd: "6764520000.00",
  circulatingSupplyTao: "9503125.5",
  circulatingSupplyRao: "9503125500000000",
  totalIssuanceRao: "9503125500000000",
  maxSupplyTao: "21000000",
  maxSupplyRao: "21000000000000000",
  source: {
    provider: "chainlink",
    feedAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    updatedAt: "2026-08-20T11:59:36.000Z",
    roundId: "18446744073709552171",
  },
};

export const priceHistoryExample: GetPriceHistoryResponse = {
  asOf: EXAMPLE_AS_OF,
  vs: "usd",
  interval: Interval.INTERVAL_ONE_HOUR,
  candles: [
    {
      bucketStart: "2026-08-20T10:00:00.000Z",
      open: "320.10",
      high: "323.00",
      low: "319.85",
      close: "321.40",
      volumeUsd: "3911200.00",
      marketCapUsd: "3054300000.00",
    },
    { bucketStart: "2026-08-20T11:00:00.000Z", open: "321.40", high: "322.50", low: "320.90", close: "322.12" },
  ],
  page: { limit: 2, nextCursor: EXAMPLE_CURSOR, hasMore: true },
};

export const networkStatsExample: GetNetworkStatsLatestResponse = {
  asOf: EXAMPLE_AS_OF,
  totalIssuanceRao: "9503125500000000",
  balancesTotalIssuanceRao: "9503125500000000",
  maxSupplyRao: "21000000000000000",
  totalStakeRao: "7100000000000000",
  stakedRootRao: "5900000000000000",
  stakedAlphaPoolsRao: "1200000000000000",
  subnetLockedRao: "300000000000000",
  freeRao: "2103125500000000",
  blockEmissionRao: "1000000000",
  blocksPerDay: 7200,
  taoWeight: "0.18",
  rootNetuid: 0,
  subnetsCount: 129,
  subnetLimit: 128,
  accountsCount: "412345",
  extrinsicsCount: "38120554",
  transfersCount: "2503311",
  countedSinceBlock: "0",
  volume: { swapVolume24hRao: "48210000000000", transferVolume24hRao: "90233000000000" },
  registration: {
    subnetRegistrationCostRao: "1250000000000",
    subnetMinLockRao: "1000000000000",
    subnetLastLockRao: "2500000000000",
    subnetLastRegistrationBlock: "7001000",
    lockReductionIntervalBlocks: "28800",
    neuronBurn: { minRao: "500000", medianRao: "120000000", maxRao: "5000000000" },
  },
};

export const poolsLatestExample: GetSubnetPoolsLatestResponse = {
  asOf: EXAMPLE_AS_OF,
  pools: [
    {
      netuid: 64,
      name: "Chutes",
      symbol: "ش",
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      taoInRao: "1216232342225",
      alphaInNalpha: "309650552567823",
      alphaOutNalpha: "425339517721064",
      alphaIssuanceNalpha: "734990070288887",
      priceTao: "0.003927757700",
      reserveRatioTao: "0.003927757700",
      movingPriceTao: "0.0038",
      marketCapRao: "2886862908160",
      liquidityRao: "2432464684450",
      rootProp: "0.5951",
      volumeTotalRao: "98122000000000",
      volume24hRao: "1210000000000",
      taoBuyVolume24hRao: "652000000000",
      taoSellVolume24hRao: "558000000000",
      buys24h: "1843",
      sells24h: "1377",
      buyers24h: "611",
      sellers24h: "402",
      priceChange1hPct: "1.16",
      priceChange24hPct: "-5.03",
      priceChange7dPct: "-29.2",
      priceUsd: "1.27",
      marketCapUsd: "929900000.00",
      blockNumber: "7012345",
      timestamp: "2026-08-20T12:00:00.000Z",
    },
  ],
  page: { limit: 1, nextCursor: EXAMPLE_CURSOR, hasMore: true },
};

export const poolsHistoryExample: GetSubnetPoolsHistoryResponse = {
  asOf: EXAMPLE_AS_OF,
  interval: Interval.INTERVAL_ONE_HOUR,
  points: [
    {
      netuid: 64,
      bucketStart: "2026-08-20T11:00:00.000Z",
      blockNumber: "7012299",
      priceOpenTao: "0.003901000000",
      priceHighTao: "0.003931000000",
      priceLowTao: "0.003899000000",
      priceCloseTao: "0.003927757700",
      movingPriceTao: "0.0038",
      taoInRao: "1216232342225",
      alphaInNalpha: "309650552567823",
      alphaOutNalpha: "425339517721064",
      marketCapRao: "2886862908160",
      volumeRao: "50120000000",
      rootProp: "0.5951",
    },
  ],
  page: { limit: 1, nextCursor: EXAMPLE_CURSOR, hasMore: true },
};

export const emissionsLatestExample: GetSubnetEmissionsLatestResponse = {
  asOf: EXAMPLE_AS_OF,
  blockEmissionRao: "1000000000",
  totalTaoEmissionRao: "1000000000",
  subnetsEmitting: 128,
  ownerCut: "0.18",
  emissions: [
    {
      netuid: 64,
      name: "Chutes",
      symbol: "ش",
      emissionEnabled: true,
      taoEmissionShare: "0.0731",
      taoInEmissionRao: "73100000",
      excessTaoRao: "0",
      rootSellTaoRao: "12000000",
      alphaInEmissionNalpha: "18611000000",
      alphaOutEmissionNalpha: "1000000000",
      alphaOutSplit: {
        ownerNalpha: "180000000",
        minersNalpha: "410000000",
        validatorsNalpha: "244000000",
        rootNalpha: "166000000",
      },
      pending: {
        serverNalpha: "59040000000",
        validatorNalpha: "35136000000",
        rootAlphaNalpha: "23904000000",
        ownerNalpha: "25920000000",
      },
      rootProp: "0.59",
      tempo: 360,
      lastEpochBlock: "7012200",
      nextEpochBlock: "7012561",
      blocksSinceLastEpoch: "145",
      perDayEstimate: { taoInRao: "526320000000", alphaOutNalpha: "7200000000000" },
    },
  ],
  page: { limit: 1, nextCursor: EXAMPLE_CURSOR, hasMore: true },
};

export const subnetsLatestExample: GetSubnetsLatestResponse = {
  asOf: EXAMPLE_AS_OF,
  subnets: [
    {
      netuid: 64,
      name: "Chutes",
      symbol: "ش",
      identity: {
        subnetName: "Chutes",
        githubRepo: "https://github.com/example/chutes",
        subnetContact: "ops@example.org",
        subnetUrl: "https://chutes.example",
        discord: "",
        description: "Serverless AI compute",
        logoUrl: "",
        additional: "",
      },
      owner: { coldkey: ALICE, hotkey: BOB },
      registeredAtBlock: "4811000",
      registeredAt: "2025-01-10T08:00:00.000Z",
      mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
      tempo: 360,
      lastEpochBlock: "7012200",
      nextEpochBlock: "7012561",
      uidCount: 256,
      maxUids: 256,
      maxValidators: 64,
      validatorsWithPermit: 64,
      activeUids: 241,
      registration: {
        allowed: true,
        powAllowed: false,
        burnRao: "120000000",
        minBurnRao: "500000",
        maxBurnRao: "100000000000",
        difficulty: "10000000",
        recycledTotalRao: "81230000000",
      },
      transfersEnabled: true,
      emissionEnabled: true,
      commitReveal: { enabled: true, interval: "1" },
      liquidAlpha: { enabled: false, alphaLow: "0.7", alphaHigh: "0.9" },
      yuma3Enabled: true,
      hyperparameters: {
        rho: 10,
        kappa: 32767,
        immunityPeriod: 5000,
        minAllowedWeights: 1,
        maxWeightLimit: 65535,
        weightsVersion: "0",
        weightsRateLimit: "100",
        activityCutoff: 5000,
        adjustmentAlpha: "17893341751498265066",
        bondsMovingAverage: "900000",
        servingRateLimit: "50",
        alphaSigmoidSteepness: 1000,
      },
      pool: { priceTao: "0.003927757700", taoInRao: "1216232342225", marketCapRao: "2886862908160" },
    },
  ],
  page: { limit: 1, nextCursor: EXAMPLE_CURSOR, hasMore: true },
};

export const validatorsLatestExample: GetValidatorsLatestResponse = {
  asOf: EXAMPLE_AS_OF,
  netuid: 64,
  validators: [
    {
      uid: 140,
      hotkey: BOB,
      coldkey: ALICE,
      identity: {
        name: "Example Validator",
        url: "https://validator.example",
        githubRepo: "",
        image: "",
        discord: "",
        description: "",
        additional: "",
      },
      validatorPermit: true,
      active: true,
      registeredAtBlock: "2064863",
      take: "0.17999542",
      childkeyTake: "0",
      alphaStakeNalpha: "28193611901088",
      rootStakeRao: "100074319189",
      stakeWeight: "46207010665842",
      totalStakeValueRao: "210811402214",
      dividends: "0.12471199",
      vtrust: "0.86720073",
      incentive: "0",
      consensus: "0",
      emissionNalpha: "1706598192",
      alphaDividendsNalpha: "1706598192",
      rootAlphaDividendsNalpha: "0",
      lastUpdateBlock: "7012300",
      blocksSinceUpdate: "45",
      nominatorsCount: 8695,
      hotkeyDividendsNalpha: "2081217307",
      yield: {
        yield1h: "0.184023117560264811",
        yield1d: "0.179631840128655318",
        yield7d: "0.181125707716270994",
        coveredFromBlock: "6869880",
        coveredFromTime: "2026-07-31T17:07:00.000Z",
      },
    },
  ],
  page: { limit: 1, nextCursor: EXAMPLE_CURSOR, hasMore: true },
};

export const holdersTopExample: GetHoldersTopResponse = {
  asOf: EXAMPLE_AS_OF,
  netuid: 64,
  holdersCount: 5123,
  alphaOutNalpha: "425339517721064",
  priceTao: "0.003927757700",
  coverage: HolderCoverage.HOLDER_COVERAGE_REGISTERED_HOTKEYS_ONLY,
  holders: [
    {
      rank: 1,
      coldkey: ALICE,
      alphaNalpha: "28193611901088",
      shareOfAlphaOut: "0.066284",
      valueRao: "110737526389",
      positionsCount: 2,
      hotkeys: [
        { hotkey: BOB, alphaNalpha: "20000000000000" },
        { hotkey: CHARLIE, alphaNalpha: "8193611901088" },
      ],
      identityName: "Example Validator",
    },
  ],
  page: { limit: 1, nextCursor: EXAMPLE_CURSOR, hasMore: true },
};

/** The newest block of a bucket of the examples' histories: 12:00 falls in the bucket from 12:00. */
const HOURLY_AS_OF: AsOf = {
  ...EXAMPLE_AS_OF,
  blockNumber: "7012044",
  blockHash: "0x2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d5c0e3f1e9a7b2d4c6e8f0a1b3c5d7e9f1a",
  timestamp: "2026-08-20T11:59:48.000Z",
};

// A history point leaves out what the latest route derives from other series.
const { neuronBurn: _burn, ...registrationOfPoint } = networkStatsExample.registration!;
const { name: _name, symbol: _symbol, ...emissionOfPoint } = emissionsLatestExample.emissions[0]!;
const { pool: _pool, ...subnetOfPoint } = subnetsLatestExample.subnets[0]!;

export const networkStatsHistoryExample: GetNetworkStatsHistoryResponse = {
  asOf: EXAMPLE_AS_OF,
  interval: Interval.INTERVAL_ONE_HOUR,
  points: [
    {
      bucketStart: "2026-08-20T11:00:00.000Z",
      stats: { ...networkStatsExample, asOf: HOURLY_AS_OF, volume: {}, registration: registrationOfPoint },
    },
  ],
  page: { limit: 1, hasMore: true, nextCursor: EXAMPLE_CURSOR },
};

export const emissionsHistoryExample: GetSubnetEmissionsHistoryResponse = {
  asOf: EXAMPLE_AS_OF,
  interval: Interval.INTERVAL_ONE_HOUR,
  points: [
    {
      bucketStart: "2026-08-20T11:00:00.000Z",
      blockNumber: HOURLY_AS_OF.blockNumber,
      timestamp: HOURLY_AS_OF.timestamp,
      emission: emissionOfPoint,
    },
  ],
  page: { limit: 1, hasMore: true, nextCursor: EXAMPLE_CURSOR },
};

export const subnetsHistoryExample: GetSubnetsHistoryResponse = {
  asOf: EXAMPLE_AS_OF,
  interval: Interval.INTERVAL_ONE_DAY,
  points: [
    {
      bucketStart: "2026-08-20T00:00:00.000Z",
      blockNumber: "7005120",
      timestamp: "2026-08-19T12:00:00.000Z",
      subnet: subnetOfPoint,
    },
  ],
  page: { limit: 1, hasMore: true, nextCursor: EXAMPLE_CURSOR },
};

/** 10 TAO staked into a pool of 100 TAO and 1,000 alpha: 1000 − 1000 × 100 ÷ 110 alpha, rounded down. */
export const swapEstimateExample: GetSwapEstimateResponse = {
  asOf: EXAMPLE_AS_OF,
  netuid: 64,
  direction: SwapDirection.SWAP_DIRECTION_STAKE,
  taoRao: "10000000000",
  alphaNalpha: "90909090909",
  spotPriceTao: "0.1",
  effectivePriceTao: "0.11",
  priceImpact: "0.09090909091",
  feeRao: "0",
  mechanism: PoolMechanism.POOL_MECHANISM_DYNAMIC,
  poolTaoInRao: "100000000000",
  poolAlphaInNalpha: "1000000000000",
  poolTaoInAfterRao: "110000000000",
  poolAlphaInAfterNalpha: "909090909091",
};
