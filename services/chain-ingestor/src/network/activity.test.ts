import { accountFromEvmAddress, accountFromPublicKey, precompileAddresses, stakingV2Abi } from "@platform/subtensor";
import { TransactionType } from "@platform/proto/common/v1/network";
import { encodeFunctionData, toFunctionSelector, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { decodeActivity, type MinedTransaction } from "./activity.js";
import { balanceTransferAbi, stakingV2WritesAbi } from "./stakingCalls.js";

const ALICE_KEY = "0xd43593c715fdd31c61141abd04a99fd6822c8558854ccde39a5684e7a56da27d" as Hex;
const HOTKEY = "0x8eaf04151687736326c9fea17e25fc5287613693c912909cb226aa4794f26a48" as Hex;
const SENDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266" as Hex;
const RECIPIENT = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" as Hex;

function tx(overrides: Partial<MinedTransaction>): MinedTransaction {
  return {
    hash: "0xaa",
    index: 3,
    from: SENDER,
    to: RECIPIENT,
    valueWei: 0n,
    input: "0x",
    success: true,
    gasUsed: 21_000n,
    effectiveGasPriceWei: 2_000_000_000n,
    ...overrides,
  };
}

describe("staking call ABI", () => {
  it("has the selectors of the research notes (Rust #[precompile::public] strings)", () => {
    const selectors = Object.fromEntries(
      stakingV2WritesAbi.map((item) => [item.name, toFunctionSelector(item)]),
    );
    expect(selectors).toMatchObject({
      addStake: "0x1fc9b141",
      removeStake: "0x7d691e30",
      removeStakeFull: "0xd4626bb9",
      removeStakeFullLimit: "0xa3553cf8",
      moveStake: "0x1149f659",
      transferStake: "0x17ce5f62",
      burnAlpha: "0x5201f1e6",
      addStakeLimit: "0x5beb6b74",
      removeStakeLimit: "0x176848b2",
    });
    expect(toFunctionSelector(balanceTransferAbi[0])).toBe("0xcd6f4eb1");
  });
});

describe("decodeActivity", () => {
  it("reads a plain value transfer as a transfer between the mapped accounts, fee in rao", () => {
    const activity = decodeActivity(100n, tx({ valueWei: 1_500_000_000_000_000_000n }));
    expect(activity).toMatchObject({
      activityId: "100-3-0",
      type: TransactionType.TRANSACTION_TYPE_TRANSFER,
      amountRao: 1_500_000_000n,
      // 21000 gas × 2 gwei = 42e12 wei = 42,000 rao.
      feeRao: 42_000n,
      from: accountFromEvmAddress(SENDER),
      to: accountFromEvmAddress(RECIPIENT),
    });
    expect(activity.parties.map((party) => [party.account.evmH160?.toLowerCase(), party.direction])).toEqual([
      [SENDER, "out"],
      [RECIPIENT, "in"],
    ]);
  });

  it("reads a BalanceTransfer precompile call as a transfer to the public key", () => {
    const input = encodeFunctionData({ abi: balanceTransferAbi, functionName: "transfer", args: [ALICE_KEY] });
    const activity = decodeActivity(7n, tx({ to: precompileAddresses.balanceTransfer, input, valueWei: 10n ** 18n }));
    expect(activity.type).toBe(TransactionType.TRANSACTION_TYPE_TRANSFER);
    expect(activity.to).toEqual(accountFromPublicKey(ALICE_KEY));
    expect(activity.amountRao).toBe(1_000_000_000n);
    expect(activity.parties).toHaveLength(2);
  });

  it("decodes Staking V2 addStake and removeStake by selector, with their units", () => {
    const add = encodeFunctionData({ abi: stakingV2Abi, functionName: "addStake", args: [HOTKEY, 5_000_000_000n, 3n] });
    const added = decodeActivity(9n, tx({ to: precompileAddresses.stakingV2, input: add, valueWei: 5n * 10n ** 18n }));
    expect(added).toMatchObject({
      type: TransactionType.TRANSACTION_TYPE_STAKE_ADD,
      amountRao: 5_000_000_000n,
      netuid: 3,
      hotkey: accountFromPublicKey(HOTKEY),
      parties: [{ account: accountFromEvmAddress(SENDER), direction: "out" }],
    });
    expect(added.stakeTouches).toEqual([{ coldkey: accountFromEvmAddress(SENDER), hotkey: accountFromPublicKey(HOTKEY), netuid: 3 }]);

    const remove = encodeFunctionData({ abi: stakingV2Abi, functionName: "removeStake", args: [HOTKEY, 123n, 3n] });
    const removed = decodeActivity(9n, tx({ to: precompileAddresses.stakingV2, input: remove, success: false }));
    expect(removed).toMatchObject({ type: TransactionType.TRANSACTION_TYPE_STAKE_REMOVE, alphaNalpha: 123n, netuid: 3, success: false });
    expect(removed.amountRao).toBeUndefined();
    expect(removed.parties[0]!.direction).toBe("in");
  });

  it("decodes moveStake across subnets as a swap and transferStake as a two-sided transfer", () => {
    const move = encodeFunctionData({ abi: stakingV2WritesAbi, functionName: "moveStake", args: [HOTKEY, ALICE_KEY, 1n, 2n, 50n] });
    expect(decodeActivity(1n, tx({ to: precompileAddresses.stakingV2, input: move })).type).toBe(TransactionType.TRANSACTION_TYPE_STAKE_SWAP);
    const transfer = encodeFunctionData({ abi: stakingV2WritesAbi, functionName: "transferStake", args: [ALICE_KEY, HOTKEY, 1n, 1n, 50n] });
    const activity = decodeActivity(1n, tx({ to: precompileAddresses.stakingV2, input: transfer }));
    expect(activity.type).toBe(TransactionType.TRANSACTION_TYPE_STAKE_TRANSFER);
    expect(activity.parties.map((party) => [party.account.publicKey, party.direction])).toEqual([
      [accountFromEvmAddress(SENDER).publicKey, "out"],
      [ALICE_KEY, "in"],
    ]);
  });

  it("labels any other call an EVM transaction of the sender only", () => {
    const activity = decodeActivity(1n, tx({ input: "0x12345678", valueWei: 0n }));
    expect(activity.type).toBe(TransactionType.TRANSACTION_TYPE_EVM_TX);
    expect(activity.parties).toEqual([{ account: accountFromEvmAddress(SENDER), direction: "out" }]);
    const unknownStaking = decodeActivity(1n, tx({ to: precompileAddresses.stakingV2, input: "0xdeadbeef" }));
    expect(unknownStaking.type).toBe(TransactionType.TRANSACTION_TYPE_EVM_TX);
  });

  it("gives a transfer to oneself one record", () => {
    expect(decodeActivity(1n, tx({ to: SENDER, valueWei: 10n ** 18n })).parties).toHaveLength(1);
  });
});
