import { type ChainRef, Finality } from "@platform/proto/common/v1/common";
import type { IntentsChainEvent } from "@platform/proto/events/v1/chain_intents";
import { type IntentNotificationEvent, TxOutcome } from "@platform/proto/events/v1/intents_notifications";
import { IntentStatus } from "@platform/proto/intents/v1/intents";
import { describe, expect, it } from "vitest";
import { deriveOrderRecord, derivePlaceholderRecord, placeholderOrderId } from "./deriveRecord.js";
import type { HeadState } from "./heads.js";
import { emptyOrderState, evolveOrder, type OrderState, parseOrderState, serializeOrderState } from "./orderState.js";
import { recordIndexes } from "./recordIndexes.js";
import { evolveTx, type TxState, txStateFromHash, txStateToHash, txStatus } from "./txState.js";

/* The intents fold as pure functions: events in, record out. */

const ORIGIN = "31337";
const DESTINATION = "31338";
const ORDER = `0x${"ab".repeat(32)}`;
const USER = "0x00000000000000000000000000000000000000A1";
const FILLER = "0x00000000000000000000000000000000000000F1";
const OPEN_TX = `0x${"01".repeat(32)}`;
const FILL_DEADLINE = 1_800_000_100;
const GRACE = 60;

const blockHash = (chainId: string, number: number, fork = "a") =>
  `0x${fork.repeat(2)}${chainId.padStart(8, "0")}${number.toString(16).padStart(54, "0")}`;

function ref(chainId: string, number: number, txHash: string, logIndex: number, fork = "a"): ChainRef {
  return {
    chainId,
    blockNumber: String(number),
    blockHash: blockHash(chainId, number, fork),
    parentHash: blockHash(chainId, number - 1, fork),
    blockTimestamp: new Date((1_800_000_000 + number) * 1_000).toISOString(),
    txHash,
    txIndex: 0,
    logIndex,
    finality: Finality.FINALITY_LATEST,
  };
}

const bytes32 = (address: string) => `0x${"0".repeat(24)}${address.slice(2).toLowerCase()}`;

function opened(at: ChainRef = ref(ORIGIN, 10, OPEN_TX, 0)): IntentsChainEvent {
  return {
    event: {
      $case: "orderOpened",
      value: {
        ref: at,
        orderId: ORDER,
        settler: "0x00000000000000000000000000000000000000C1",
        txFrom: USER,
        resolvedOrder: {
          user: USER,
          originChainId: ORIGIN,
          openDeadline: 4_294_967_295,
          fillDeadline: FILL_DEADLINE,
          orderId: ORDER,
          maxSpent: [
            {
              token: bytes32("0x00000000000000000000000000000000000000D1"),
              amount: "990",
              recipient: bytes32(USER),
              chainId: DESTINATION,
            },
          ],
          minReceived: [
            { token: `0x${"0".repeat(64)}`, amount: "1000", recipient: `0x${"0".repeat(64)}`, chainId: ORIGIN },
          ],
          fillInstructions: [
            {
              destinationChainId: DESTINATION,
              destinationSettler: bytes32("0x00000000000000000000000000000000000000C2"),
              originData: "0x",
            },
          ],
        },
      },
    },
  };
}

function filled(at: ChainRef = ref(DESTINATION, 20, `0x${"02".repeat(32)}`, 1)): IntentsChainEvent {
  return {
    event: {
      $case: "orderFilled",
      value: {
        ref: at,
        orderId: ORDER,
        settler: "0x00000000000000000000000000000000000000C2",
        filler: FILLER,
        recipient: bytes32(USER),
        outputToken: bytes32("0x00000000000000000000000000000000000000D1"),
        outputAmount: "990",
        repaymentAddress: bytes32(FILLER),
      },
    },
  };
}

function settled(at: ChainRef = ref(ORIGIN, 12, `0x${"03".repeat(32)}`, 0)): IntentsChainEvent {
  return {
    event: {
      $case: "orderSettled",
      value: {
        ref: at,
        orderId: ORDER,
        settler: "0x00000000000000000000000000000000000000C1",
        filler: FILLER,
        inputToken: `0x${"0".repeat(64)}`,
        inputAmount: "1000",
      },
    },
  };
}

function refunded(at: ChainRef = ref(ORIGIN, 15, `0x${"04".repeat(32)}`, 0)): IntentsChainEvent {
  return {
    event: {
      $case: "orderRefunded",
      value: {
        ref: at,
        orderId: ORDER,
        settler: "0x00000000000000000000000000000000000000C1",
        user: USER,
        inputToken: `0x${"0".repeat(64)}`,
        inputAmount: "1000",
      },
    },
  };
}

function removed(event: IntentsChainEvent): IntentsChainEvent {
  const value = event.event!.value as { ref: ChainRef };
  return {
    event: {
      $case: "chainEventRemoved",
      value: {
        removed: value.ref,
        removedEventId: "x",
        removedEventType: "OrderX",
        key: ORDER,
        commonAncestorBlockNumber: "1",
        commonAncestorBlockHash: "0x",
        detectedAt: "2027-01-01T00:00:00.000Z",
      },
    },
  };
}

function head(
  chainId: string,
  seconds: number,
  numbers: { block: number; safe?: number; finalized?: number },
): HeadState {
  return {
    chainId,
    blockNumber: String(numbers.block),
    blockHash: blockHash(chainId, numbers.block),
    timestamp: new Date(seconds * 1_000).toISOString(),
    ...(numbers.safe === undefined ? {} : { safeBlockNumber: String(numbers.safe) }),
    ...(numbers.finalized === undefined ? {} : { finalizedBlockNumber: String(numbers.finalized) }),
  };
}

const beforeDeadline = new Map([[DESTINATION, head(DESTINATION, FILL_DEADLINE, { block: 30 })]]);
const afterDeadline = new Map([[DESTINATION, head(DESTINATION, FILL_DEADLINE + 1, { block: 31 })]]);

function fold(events: IntentsChainEvent[]): OrderState {
  return events.reduce(evolveOrder, emptyOrderState(ORDER));
}

function statusOf(
  events: IntentsChainEvent[],
  heads: ReadonlyMap<string, HeadState> = beforeDeadline,
  notification?: TxState,
) {
  return deriveOrderRecord(fold(events), notification, { heads, refundGraceSeconds: GRACE })?.status;
}

describe("intents fold: chain events", () => {
  it("open → filled → settled, with each step's chain reference", () => {
    expect(statusOf([opened()])).toBe(IntentStatus.INTENT_STATUS_OPEN);
    expect(statusOf([opened(), filled()])).toBe(IntentStatus.INTENT_STATUS_FILLED);
    const record = deriveOrderRecord(fold([opened(), filled(), settled()]), undefined, {
      heads: beforeDeadline,
      refundGraceSeconds: GRACE,
    })!;
    expect(record).toMatchObject({
      orderId: ORDER,
      status: IntentStatus.INTENT_STATUS_SETTLED,
      isFinal: true,
      userAddress: USER,
      originChainId: ORIGIN,
      originTxHash: OPEN_TX,
      destinationChainId: DESTINATION,
      input: { token: "0x0000000000000000000000000000000000000000", amount: "1000" },
      output: { token: "0x00000000000000000000000000000000000000D1", amount: "990", recipient: USER },
      fillDeadline: FILL_DEADLINE,
      refundableAt: new Date((FILL_DEADLINE + GRACE) * 1_000).toISOString(),
      filler: FILLER,
    });
    expect(record.opened?.blockNumber).toBe("10");
    expect(record.filled?.chainId).toBe(DESTINATION);
    expect(record.settled?.txHash).toBe(`0x${"03".repeat(32)}`);
  });

  it("settles without a seen fill (the chain is trusted) and refunds after expiry", () => {
    expect(statusOf([opened(), settled()])).toBe(IntentStatus.INTENT_STATUS_SETTLED);
    expect(statusOf([opened()], afterDeadline)).toBe(IntentStatus.INTENT_STATUS_EXPIRED);
    const refund = deriveOrderRecord(fold([opened(), refunded()]), undefined, {
      heads: afterDeadline,
      refundGraceSeconds: GRACE,
    })!;
    expect(refund).toMatchObject({ status: IntentStatus.INTENT_STATUS_REFUNDED, isFinal: true });
  });

  it("derives EXPIRED from the destination chain's clock only, strictly past the deadline, until a fill", () => {
    expect(statusOf([opened()], new Map())).toBe(IntentStatus.INTENT_STATUS_OPEN);
    expect(statusOf([opened()], new Map([[ORIGIN, head(ORIGIN, FILL_DEADLINE + 100, { block: 50 })]]))).toBe(
      IntentStatus.INTENT_STATUS_OPEN,
    );
    expect(statusOf([opened()], beforeDeadline)).toBe(IntentStatus.INTENT_STATUS_OPEN);
    expect(statusOf([opened()], afterDeadline)).toBe(IntentStatus.INTENT_STATUS_EXPIRED);
    // A fill seen late (lag between chains) moves EXPIRED on to FILLED.
    expect(statusOf([opened(), filled()], afterDeadline)).toBe(IntentStatus.INTENT_STATUS_FILLED);
  });

  it("a removed Filled moves FILLED back to OPEN, and the re-read fork's fill moves it forward again", () => {
    const fill = filled();
    expect(statusOf([opened(), fill, removed(fill)])).toBe(IntentStatus.INTENT_STATUS_OPEN);
    const refill = filled(ref(DESTINATION, 20, `0x${"02".repeat(32)}`, 1, "b"));
    const record = deriveOrderRecord(fold([opened(), fill, removed(fill), refill]), undefined, {
      heads: beforeDeadline,
      refundGraceSeconds: GRACE,
    })!;
    expect(record.status).toBe(IntentStatus.INTENT_STATUS_FILLED);
    expect(record.filled?.blockHash).toBe((refill.event!.value as { ref: ChainRef }).ref.blockHash);
  });

  it("a removed Open removes the order from every read, and keeps later steps for when it is re-read", () => {
    const open = opened();
    expect(
      deriveOrderRecord(fold([open, removed(open)]), undefined, { heads: beforeDeadline, refundGraceSeconds: GRACE }),
    ).toBeUndefined();
    const state = fold([open, filled(), removed(open)]);
    expect(deriveOrderRecord(state, undefined, { heads: beforeDeadline, refundGraceSeconds: GRACE })).toBeUndefined();
    const reopened = evolveOrder(state, opened(ref(ORIGIN, 10, OPEN_TX, 0, "b")));
    expect(deriveOrderRecord(reopened, undefined, { heads: beforeDeadline, refundGraceSeconds: GRACE })?.status).toBe(
      IntentStatus.INTENT_STATUS_FILLED,
    );
  });

  it("a removal of an event that does not stand changes nothing", () => {
    const state = fold([opened(), filled()]);
    expect(evolveOrder(state, removed(settled()))).toBe(state);
  });

  it("is idempotent: the same batch applied again gives the same state and record", () => {
    const fill = filled();
    const batch = [
      opened(),
      fill,
      removed(fill),
      filled(ref(DESTINATION, 21, `0x${"05".repeat(32)}`, 0, "b")),
      settled(),
    ];
    const once = fold(batch);
    const twice = fold([...batch, ...batch]);
    expect(twice).toEqual(once);
    expect(parseOrderState(ORDER, serializeOrderState(once))).toEqual(once);
  });

  it("raises each step's finality from the heads and lists the order in the finality indexes until final", () => {
    const state = fold([opened(), filled()]);
    const latest = deriveOrderRecord(state, undefined, { heads: beforeDeadline, refundGraceSeconds: GRACE })!;
    expect(recordIndexes(ORDER, latest).map((entry) => entry.key)).toEqual(
      expect.arrayContaining([
        `rm:{intents}:unsafe:${ORIGIN}`,
        `rm:{intents}:unfinalized:${ORIGIN}`,
        `rm:{intents}:unsafe:${DESTINATION}`,
      ]),
    );
    const heads = new Map([
      [ORIGIN, head(ORIGIN, FILL_DEADLINE - 50, { block: 40, safe: 39, finalized: 37 })],
      [DESTINATION, head(DESTINATION, FILL_DEADLINE - 10, { block: 40, safe: 20, finalized: 10 })],
    ]);
    const raised = deriveOrderRecord(state, undefined, { heads, refundGraceSeconds: GRACE })!;
    expect(raised.opened?.finality).toBe(Finality.FINALITY_FINALIZED);
    expect(raised.filled?.finality).toBe(Finality.FINALITY_SAFE);
    expect(raised.asOf.map((asOf) => asOf.chainId)).toEqual([ORIGIN, DESTINATION]);
    expect(recordIndexes(ORDER, raised).map((entry) => entry.key)).toEqual([
      `rm:{intents}:user:${USER}:pending`,
      `rm:{intents}:unfinalized:${DESTINATION}`,
    ]);
  });

  it("indexes: pending while not final, expired with its deadline, deadline index while OPEN or EXPIRED", () => {
    const open = deriveOrderRecord(fold([opened()]), undefined, { heads: afterDeadline, refundGraceSeconds: GRACE })!;
    const keys = recordIndexes(ORDER, open);
    expect(keys).toEqual(
      expect.arrayContaining([
        { key: `rm:{intents}:user:${USER}:pending`, member: ORDER, score: Date.parse(open.opened!.blockTimestamp) },
        { key: `rm:{intents}:user:${USER}:expired`, member: ORDER, score: FILL_DEADLINE },
        { key: `rm:{intents}:deadlines:${DESTINATION}`, member: ORDER, score: FILL_DEADLINE },
      ]),
    );
    const done = deriveOrderRecord(fold([opened(), refunded()]), undefined, {
      heads: afterDeadline,
      refundGraceSeconds: GRACE,
    })!;
    expect(recordIndexes(ORDER, done).filter((entry) => entry.key.startsWith("rm:{intents}:user:"))).toEqual([]);
  });
});

const notified = (orderId?: string): IntentNotificationEvent => ({
  event: {
    $case: "intentNotified",
    value: {
      originChainId: ORIGIN,
      txHash: OPEN_TX,
      userAddress: USER,
      notifiedAt: "2027-01-15T08:00:00.000Z",
      apiKeyId: "k",
      tcVersion: 1,
      ...(orderId ? { orderId } : {}),
    },
  },
});
const resolved = (outcome: TxOutcome, orderIds: string[] = []): IntentNotificationEvent => ({
  event: {
    $case: "notifiedTxResolved",
    value: { originChainId: ORIGIN, txHash: OPEN_TX, outcome, orderIds, resolvedAt: "2027-01-15T08:00:05.000Z" },
  },
});
const tx = (events: IntentNotificationEvent[]): TxState =>
  events.reduce(evolveTx, { chainId: ORIGIN, txHash: OPEN_TX } as TxState);
const context = { heads: beforeDeadline, refundGraceSeconds: GRACE };

describe("intents fold: notifications", () => {
  it("notified → SUBMITTED, pending under the transaction; then REVERTED, final and off the pending list", () => {
    const submitted = derivePlaceholderRecord(tx([notified()]), context)!;
    expect(submitted).toMatchObject({
      orderId: "",
      status: IntentStatus.INTENT_STATUS_SUBMITTED,
      isFinal: false,
      userAddress: USER,
      originTxHash: OPEN_TX,
    });
    expect(recordIndexes(`tx:${ORIGIN}:${OPEN_TX}`, submitted)).toEqual([
      {
        key: `rm:{intents}:user:${USER}:pending`,
        member: `tx:${ORIGIN}:${OPEN_TX}`,
        score: Date.parse("2027-01-15T08:00:00.000Z"),
      },
    ]);
    const reverted = derivePlaceholderRecord(tx([notified(), resolved(TxOutcome.TX_OUTCOME_REVERTED)]), context)!;
    expect(reverted).toMatchObject({ status: IntentStatus.INTENT_STATUS_REVERTED, isFinal: true });
    expect(recordIndexes(`tx:${ORIGIN}:${OPEN_TX}`, reverted)).toEqual([]);
  });

  it("DROPPED stays pending; SUCCEEDED waits for the Open (the chain makes it OPEN), and notifies the order's record", () => {
    expect(derivePlaceholderRecord(tx([notified(), resolved(TxOutcome.TX_OUTCOME_DROPPED)]), context)?.status).toBe(
      IntentStatus.INTENT_STATUS_DROPPED,
    );
    const succeeded = tx([notified(ORDER), resolved(TxOutcome.TX_OUTCOME_SUCCEEDED, [ORDER])]);
    expect(derivePlaceholderRecord(succeeded, context)?.status).toBe(IntentStatus.INTENT_STATUS_SUBMITTED);
    expect(placeholderOrderId(succeeded)).toBe(ORDER);
    const record = deriveOrderRecord(fold([opened()]), succeeded, context)!;
    expect(record).toMatchObject({ status: IntentStatus.INTENT_STATUS_OPEN, notifiedAt: "2027-01-15T08:00:00.000Z" });
    expect(txStatus(succeeded, true)).toBe("SUCCEEDED");
  });

  it("keeps the first notification, lets a later resolution win, and round-trips through the hash", () => {
    const later: IntentNotificationEvent = {
      event: {
        $case: "intentNotified",
        value: { ...(notified().event!.value as object), notifiedAt: "2027-02-01T00:00:00.000Z" } as never,
      },
    };
    const state = tx([
      notified(ORDER),
      later,
      resolved(TxOutcome.TX_OUTCOME_DROPPED),
      resolved(TxOutcome.TX_OUTCOME_SUCCEEDED, [ORDER]),
    ]);
    expect(state.notified?.notifiedAt).toBe("2027-01-15T08:00:00.000Z");
    expect(state.resolution?.outcome).toBe("SUCCEEDED");
    const hash = txStateToHash(state, false)!;
    expect(hash).toMatchObject({
      status: "SUCCEEDED",
      userAddress: USER,
      orderId: ORDER,
      resolution: "SUCCEEDED",
      orderIds: ORDER,
    });
    expect(txStateFromHash(ORIGIN, OPEN_TX, hash)).toEqual(state);
  });

  it("believes a claim only as far as the mined sender bears it out: the sender's claim wins whenever it came", () => {
    const SQUATTER = "0x5555555555555555555555555555555555555555";
    // Squatter first, sender second, then mined by the sender: the sender's claim is shown.
    const contested = tx([
      claimBy(SQUATTER, "2027-01-15T08:00:00.000Z", `0x${"cd".repeat(32)}`),
      claimBy(USER, "2027-01-15T08:00:01.000Z"),
      minedBy(USER, TxOutcome.TX_OUTCOME_REVERTED),
    ]);
    expect(contested.notified).toEqual({ userAddress: USER, notifiedAt: "2027-01-15T08:00:01.000Z" });
    expect(contested.rejected).toEqual([SQUATTER]);
    expect(derivePlaceholderRecord(contested, context)).toMatchObject({
      userAddress: USER,
      orderId: "",
      status: IntentStatus.INTENT_STATUS_REVERTED,
    });
    expect(txStateFromHash(ORIGIN, OPEN_TX, txStateToHash(contested, false)!)).toEqual(contested);

    // Only the squatter claimed: nothing is shown for it once mined, and the sender can still claim later.
    const squatted = tx([claimBy(SQUATTER, "2027-01-15T08:00:00.000Z"), minedBy(USER, TxOutcome.TX_OUTCOME_REVERTED)]);
    expect(squatted.notified).toBeUndefined();
    expect(derivePlaceholderRecord(squatted, context)).toBeUndefined();
    expect(txStateToHash(squatted, false)).toMatchObject({ rejectedClaims: SQUATTER, txFrom: USER });
    expect(txStateToHash(squatted, false)?.userAddress).toBeUndefined();
    const reclaimed = [claimBy(SQUATTER, "2027-01-15T08:00:09.000Z"), claimBy(USER, "2027-01-15T08:00:10.000Z")].reduce(
      evolveTx,
      txStateFromHash(ORIGIN, OPEN_TX, txStateToHash(squatted, false)!),
    );
    expect(reclaimed.notified?.userAddress).toBe(USER);

    // Addresses compare in any case; a resolution without a sender (DROPPED) decides nothing, and keeps a known one.
    expect(tx([claimBy(USER, "2027-01-15T08:00:00.000Z"), minedBy(USER.toLowerCase())]).notified?.userAddress).toBe(
      USER,
    );
    const dropped = tx([
      claimBy(SQUATTER, "2027-01-15T08:00:00.000Z"),
      minedBy(undefined, TxOutcome.TX_OUTCOME_DROPPED),
    ]);
    expect(dropped.notified?.userAddress).toBe(SQUATTER);
    expect(
      tx([claimBy(USER, "2027-01-15T08:00:00.000Z"), minedBy(USER), minedBy(undefined, TxOutcome.TX_OUTCOME_DROPPED)])
        .resolution?.txFrom,
    ).toBe(USER);
  });

  it("a wrong notified order id is not used once the receipt names other orders", () => {
    const wrong = tx([notified(`0x${"cd".repeat(32)}`), resolved(TxOutcome.TX_OUTCOME_SUCCEEDED, [ORDER])]);
    expect(placeholderOrderId(wrong)).toBeUndefined();
    expect(
      derivePlaceholderRecord(tx([notified(), resolved(TxOutcome.TX_OUTCOME_SUCCEEDED, [])]), context),
    ).toBeUndefined();
  });
});

/** A notification of OPEN_TX claimed by `userAddress`. */
function claimBy(userAddress: string, notifiedAt: string, orderId?: string): IntentNotificationEvent {
  return {
    event: {
      $case: "intentNotified",
      value: {
        originChainId: ORIGIN,
        txHash: OPEN_TX,
        userAddress,
        notifiedAt,
        apiKeyId: "k",
        tcVersion: 1,
        ...(orderId ? { orderId } : {}),
      },
    },
  };
}

/** The resolution of OPEN_TX, mined by `txFrom` (undefined: a resolution without a sender, as a DROPPED one). */
function minedBy(txFrom: string | undefined, outcome = TxOutcome.TX_OUTCOME_SUCCEEDED): IntentNotificationEvent {
  return {
    event: {
      $case: "notifiedTxResolved",
      value: {
        originChainId: ORIGIN,
        txHash: OPEN_TX,
        outcome,
        orderIds: [],
        resolvedAt: "2027-01-15T08:00:05.000Z",
        ...(txFrom ? { txFrom } : {}),
      },
    },
  };
}
