import { toFunctionSelector, toEventSelector, type AbiFunction, type AbiEvent } from "viem";
import { describe, expect, it } from "vitest";
import { alphaAbi, metagraphAbi, precompileAddresses, priceFeedAbi, stakingV2Abi, subnetAbi } from "./index.js";

function selectors(abi: readonly unknown[]): Record<string, string> {
  return Object.fromEntries(
    (abi as readonly (AbiFunction | AbiEvent)[])
      .filter((item): item is AbiFunction => item.type === "function")
      .map((item) => [item.name, toFunctionSelector(item).slice(2)]),
  );
}

// Selectors from research/data-api.md §2.4, computed there from the Rust `#[precompile::public]` strings:
// an argument type or name of function that drifts from the chain's changes the selector.
describe("precompile ABIs match the chain's selectors", () => {
  it("alpha 0x…0808", () => {
    expect(selectors(alphaAbi)).toEqual({
      getAlphaPrice: "69e38bc3",
      getMovingAlphaPrice: "a86b1037",
      getTaoInPool: "2d9bfc71",
      getAlphaInPool: "c2ba9e87",
      getAlphaOutPool: "9757f56b",
      getAlphaIssuance: "42980912",
      getTaoWeight: "1b859180",
      getCKBurn: "05fa8b57",
      simSwapTaoForAlpha: "27c3f0fb",
      simSwapAlphaForTao: "a4e7d28d",
      getSubnetMechanism: "8757c476",
      getRootNetuid: "19f16c56",
      getEMAPriceHalvingBlocks: "52bfc160",
      getSubnetVolume: "77acf3aa",
      getTaoInEmission: "6064c67e",
      getAlphaInEmission: "377f604c",
      getAlphaOutEmission: "d91bd0c8",
      getSumAlphaPrice: "aaf7afbd",
    });
  });

  it("metagraph 0x…0802", () => {
    expect(selectors(metagraphAbi)).toEqual({
      getUidCount: "1f193572",
      getStake: "e7c7c4b5",
      getRank: "260ea334",
      getTrust: "20028c19",
      getConsensus: "2c4b6bff",
      getIncentive: "d1e44450",
      getDividends: "82da0b5d",
      getEmission: "e5810e5c",
      getVtrust: "2c54e2b3",
      getValidatorStatus: "58dd9945",
      getLastUpdate: "22553aa2",
      getIsActive: "dc50cca9",
      getAxon: "93afb79e",
      getHotkey: "3adc89da",
      getColdkey: "a1148287",
    });
  });

  it("staking V2 0x…0805", () => {
    expect(selectors(stakingV2Abi)).toEqual({
      addStake: "1fc9b141",
      removeStake: "7d691e30",
      removeStakeFull: "d4626bb9",
      getTotalColdkeyStake: "998538c4",
      getTotalHotkeyStake: "9f246f6f",
      getStake: "e3b598fa",
      getAlphaStakedValidators: "7eef8be3",
      getTotalAlphaStaked: "466d0171",
      getNominatorMinRequiredStake: "37f26118",
      getTotalColdkeyStakeOnSubnet: "2b6589a3",
    });
    const payable = stakingV2Abi.filter((item) => item.stateMutability === "payable").map((item) => item.name);
    expect(payable).toEqual(["addStake"]);
  });

  it("subnet 0x…0803", () => {
    expect(selectors(subnetAbi)).toEqual({
      getNetworkRegistrationBlock: "b0c751b0",
      getServingRateLimit: "7444dadc",
      getMinDifficulty: "c4f9bf33",
      getMaxDifficulty: "6f3b48d6",
      getWeightsVersionKey: "1ec0edde",
      getWeightsSetRateLimit: "ee6e8237",
      getAdjustmentAlpha: "ce4dfbd8",
      getMaxWeightLimit: "326b93d6",
      getImmunityPeriod: "86d46c03",
      getMinAllowedWeights: "ca3a3d5d",
      getKappa: "d936358d",
      getRho: "0a959cfb",
      getAlphaSigmoidSteepness: "55719c7d",
      getActivityCutoff: "1095b752",
      getNetworkRegistrationAllowed: "55681afd",
      getNetworkPowRegistrationAllowed: "ec3d558e",
      getCommitRevealWeightsEnabled: "08a9c2e0",
      getLiquidAlphaEnabled: "a3ae7a20",
      getYuma3Enabled: "29c628ef",
      getBondsResetEnabled: "24cee9bf",
      getMinBurn: "e38aa4d6",
      getMaxBurn: "457c3e43",
      getDifficulty: "271ee4ec",
      getBondsMovingAverage: "e2b8f797",
      getCommitRevealWeightsInterval: "b3398f7f",
      getAlphaValues: "01e93101",
    });
  });

  it("Chainlink aggregator: the V3 reads and the V2 events", () => {
    expect(selectors(priceFeedAbi)).toMatchObject({
      latestRoundData: "feaf968c",
      getRoundData: "9a6fc8f5",
      decimals: "313ce567",
    });
    const events = (priceFeedAbi as readonly (AbiFunction | AbiEvent)[]).filter((item): item is AbiEvent => item.type === "event");
    expect(Object.fromEntries(events.map((event) => [event.name, toEventSelector(event)]))).toEqual({
      // keccak256("AnswerUpdated(int256,uint256,uint256)") and keccak256("NewRound(uint256,address,uint256)")
      AnswerUpdated: "0x0559884fd3a460db3073b7fc896cc77986f16e378210ded43186175bf646fc5f",
      NewRound: "0x0109fc6f55cf40689f02fbaad7af7fe7bbac8a3d2186600afc7d3e10cac60271",
    });
  });

  it("places each precompile at H160::from_low_u64_be(index)", () => {
    expect(BigInt(precompileAddresses.metagraph)).toBe(2050n);
    expect(BigInt(precompileAddresses.subnet)).toBe(2051n);
    expect(BigInt(precompileAddresses.stakingV2)).toBe(2053n);
    expect(BigInt(precompileAddresses.storageQuery)).toBe(2055n);
    expect(BigInt(precompileAddresses.alpha)).toBe(2056n);
  });
});
