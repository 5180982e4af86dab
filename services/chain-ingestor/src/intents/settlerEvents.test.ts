import { randomBytes } from "node:crypto";
import { fullSettlerAbi } from "@platform/devnet";
import { Finality } from "@platform/proto/common/v1/common";
import { decodeEventLog, encodeAbiParameters, encodeEventTopics, getAbiItem, getAddress, type Hex, toHex } from "viem";
import { describe, expect, it } from "vitest";
import type { RawLog } from "../evm/rawLog.js";
import type { BlockHeader } from "../follower/blocks.js";
import { decodeOpenData } from "./decodeOpenData.js";
import { decodeSettlerLog, settlerTopics } from "./settlerEvents.js";

const random32 = (): Hex => toHex(randomBytes(32));
const randomAddress = (): Hex => getAddress(toHex(randomBytes(20)));
const asBytes32 = (address: Hex): Hex => `0x${"0".repeat(24)}${address.slice(2).toLowerCase()}`;
const SETTLER = getAddress("0x00000000000000000000000000000000000c0ffe");
const header: BlockHeader = { number: 42n, hash: random32(), parentHash: random32(), timestamp: 1_900_000_000n };

function openLog(order: ReturnType<typeof randomOrder>): RawLog {
  const item = getAbiItem({ abi: fullSettlerAbi, name: "Open" });
  const nonIndexed = item.inputs.filter((input) => !("indexed" in input && input.indexed));
  return rawLog(
    encodeEventTopics({ abi: fullSettlerAbi, eventName: "Open", args: { orderId: order.orderId } }) as Hex[],
    encodeAbiParameters(nonIndexed, [order]),
  );
}

function rawLog(topics: Hex[], data: Hex, logIndex = 3): RawLog {
  return {
    address: SETTLER.toLowerCase() as Hex,
    topics,
    data,
    blockNumber: toHex(header.number),
    blockHash: header.hash,
    transactionHash: random32(),
    transactionIndex: "0x1",
    logIndex: toHex(logIndex),
  };
}

function randomOrder(items = { maxSpent: 1, minReceived: 1, fillInstructions: 1, originDataBytes: 384 }) {
  const output = () => ({
    token: random32(),
    amount: BigInt(toHex(randomBytes(16))),
    recipient: random32(),
    chainId: BigInt(randomBytes(1)[0]!) + 1n,
  });
  return {
    user: randomAddress(),
    originChainId: 31_337n,
    openDeadline: 4_294_967_295,
    fillDeadline: 1_900_003_600,
    orderId: random32(),
    maxSpent: Array.from({ length: items.maxSpent }, output),
    minReceived: Array.from({ length: items.minReceived }, output),
    fillInstructions: Array.from({ length: items.fillInstructions }, () => ({
      destinationChainId: 31_338n,
      destinationSettler: random32(),
      originData: toHex(randomBytes(items.originDataBytes)),
    })),
  };
}

const context = {
  chainId: 31_337,
  header,
  finality: Finality.FINALITY_SAFE,
  txFrom: () => "0x00000000000000000000000000000000000000aa" as Hex,
};

describe("decodeOpenData", () => {
  it("reads every shape of ResolvedCrossChainOrder exactly as viem's decoder does", () => {
    const shapes = [
      { maxSpent: 1, minReceived: 1, fillInstructions: 1, originDataBytes: 384 },
      { maxSpent: 0, minReceived: 0, fillInstructions: 0, originDataBytes: 0 },
      { maxSpent: 3, minReceived: 2, fillInstructions: 2, originDataBytes: 5 },
      { maxSpent: 1, minReceived: 4, fillInstructions: 3, originDataBytes: 0 },
    ];
    for (const shape of shapes) {
      const log = openLog(randomOrder(shape));
      const viem = decodeEventLog({ abi: fullSettlerAbi, topics: log.topics as [Hex, ...Hex[]], data: log.data });
      expect(decodeOpenData(log.data)).toEqual((viem.args as { resolvedOrder: unknown }).resolvedOrder);
    }
  });

  it("refuses data that does not fit the layout instead of reading past it", () => {
    const log = openLog(randomOrder());
    expect(() => decodeOpenData(log.data.slice(0, log.data.length - 64) as Hex)).toThrow(/outside|overrun/);
    expect(() => decodeOpenData(`0x${"f".repeat(64)}` as Hex)).toThrow(/outside/);
    expect(() => decodeOpenData("0x1234")).toThrow(/whole 32-byte words/);
  });
});

describe("decodeSettlerLog", () => {
  it("turns an Open log into OrderOpened with its chain reference and sender", () => {
    const order = randomOrder();
    const event = decodeSettlerLog(openLog(order), context)!;
    expect(event.key).toBe(order.orderId);
    expect(event.eventType).toBe("OrderOpened");
    expect(event.eventId).toBe(`31337:${header.hash}:3`);
    expect(event.ref).toMatchObject({
      chainId: "31337",
      blockNumber: "42",
      blockHash: header.hash,
      parentHash: header.parentHash,
      logIndex: 3,
      txIndex: 1,
      finality: Finality.FINALITY_SAFE,
    });
    expect(event.ref.blockTimestamp).toBe("2030-03-17T17:46:40.000Z");
    const opened = event.payload.event?.$case === "orderOpened" ? event.payload.event.value : undefined;
    expect(opened).toMatchObject({
      orderId: order.orderId,
      settler: SETTLER,
      txFrom: getAddress("0x00000000000000000000000000000000000000aa"),
      resolvedOrder: {
        user: order.user,
        originChainId: "31337",
        fillDeadline: order.fillDeadline,
        maxSpent: [
          {
            token: order.maxSpent[0]!.token,
            amount: order.maxSpent[0]!.amount.toString(),
            recipient: order.maxSpent[0]!.recipient,
            chainId: order.maxSpent[0]!.chainId.toString(),
          },
        ],
        fillInstructions: [
          {
            destinationChainId: "31338",
            destinationSettler: order.fillInstructions[0]!.destinationSettler,
            originData: order.fillInstructions[0]!.originData,
          },
        ],
      },
    });
  });

  it("decodes Filled, Settled and Refunded, and ignores the settler's other events", () => {
    const orderId = random32();
    const filler = randomAddress();
    const filledItem = getAbiItem({ abi: fullSettlerAbi, name: "Filled" });
    const filledData = encodeAbiParameters(
      filledItem.inputs.filter((input) => !input.indexed),
      [31_337n, asBytes32(randomAddress()), asBytes32(randomAddress()), 990n, asBytes32(filler)],
    );
    const filled = decodeSettlerLog(
      rawLog(
        encodeEventTopics({ abi: fullSettlerAbi, eventName: "Filled", args: { orderId, filler } }) as Hex[],
        filledData,
      ),
      context,
    )!;
    expect(filled.payload.event).toMatchObject({
      $case: "orderFilled",
      value: { orderId, filler, outputAmount: "990", repaymentAddress: asBytes32(filler) },
    });

    const moved = encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [asBytes32(randomAddress()), 1_000n]);
    const settled = decodeSettlerLog(
      rawLog(
        encodeEventTopics({ abi: fullSettlerAbi, eventName: "Settled", args: { orderId, filler } }) as Hex[],
        moved,
      ),
      context,
    )!;
    expect(settled.payload.event).toMatchObject({
      $case: "orderSettled",
      value: { orderId, filler, inputAmount: "1000" },
    });
    const user = randomAddress();
    const refunded = decodeSettlerLog(
      rawLog(
        encodeEventTopics({ abi: fullSettlerAbi, eventName: "Refunded", args: { orderId, user } }) as Hex[],
        moved,
      ),
      context,
    )!;
    expect(refunded.payload.event).toMatchObject({
      $case: "orderRefunded",
      value: { orderId, user, inputAmount: "1000" },
    });

    const oracleSet = rawLog(
      encodeEventTopics({ abi: fullSettlerAbi, eventName: "OracleSet", args: { oracle: randomAddress() } }) as Hex[],
      "0x",
    );
    expect(decodeSettlerLog(oracleSet, context)).toBeUndefined();
    expect(Object.values(settlerTopics)).toHaveLength(4);
  });

  it("throws on a followed event it cannot decode rather than skipping a fact", () => {
    const broken = rawLog([settlerTopics.filled, random32()], "0x1234");
    expect(() => decodeSettlerLog(broken, context)).toThrow(/could not decode a FullSettler log/);
  });
});
