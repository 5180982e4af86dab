import { invalidArgument } from "@platform/errors";
import {
  IntentRecord,
  IntentStatus,
  type ListByTransactionRequest,
  type ListByTransactionResponse,
  TransactionStatus,
} from "@platform/proto/intents/v1/intents";
import { intentsReadKeys } from "@platform/read-models";
import type { Redis } from "@platform/store";
import { notifiedKey } from "../notify/notifiedKeys.js";
import { parseChainId, parseHash32 } from "../validation/fields.js";
import { loadHeads, loadRecords, withCurrentHeads } from "./loadRecords.js";
import { mirrorUnavailable } from "./mirrorErrors.js";

const TX_STATES: Readonly<Record<string, TransactionStatus>> = {
  NOTIFIED: TransactionStatus.TRANSACTION_STATUS_PENDING,
  SUCCEEDED: TransactionStatus.TRANSACTION_STATUS_SUCCEEDED,
  REVERTED: TransactionStatus.TRANSACTION_STATUS_REVERTED,
  DROPPED: TransactionStatus.TRANSACTION_STATUS_DROPPED,
};

const RECORD_STATES: Partial<Record<IntentStatus, TransactionStatus>> = {
  [IntentStatus.INTENT_STATUS_SUBMITTED]: TransactionStatus.TRANSACTION_STATUS_PENDING,
  [IntentStatus.INTENT_STATUS_REVERTED]: TransactionStatus.TRANSACTION_STATUS_REVERTED,
  [IntentStatus.INTENT_STATUS_DROPPED]: TransactionStatus.TRANSACTION_STATUS_DROPPED,
};

/**
 * The records one transaction opened, and the transaction's own state, so an empty list says why:
 * not found, pending (notified, not yet mined or indexed), reverted or dropped. Answered with 200
 * either way: a client polling right after broadcasting must not see a 404 for a real transaction.
 */
export async function listByTransaction(
  redis: Redis,
  intentChainIds: ReadonlySet<number>,
  request: ListByTransactionRequest,
): Promise<ListByTransactionResponse> {
  const chainId = parseChainId(request.originChainId, "originChainId");
  if (!intentChainIds.has(chainId)) {
    throw invalidArgument("UNSUPPORTED_CHAIN", `originChainId ${chainId} is not an intents chain of this deployment`, {
      parameter: "originChainId",
      supportedChainIds: [...intentChainIds],
    });
  }
  const chain = String(chainId);
  const txHash = parseHash32(request.txHash, "txHash");

  const results = await redis
    .pipeline()
    .smembers(intentsReadKeys.txOrders(chain, txHash))
    .hgetall(intentsReadKeys.txState(chain, txHash))
    .getBuffer(intentsReadKeys.txOrder(chain, txHash))
    .exists(notifiedKey(chain, txHash))
    .exec()
    .catch((error: unknown) => {
      throw mirrorUnavailable(error);
    });
  const replies = (results ?? []).map(([error, value]) => {
    if (error) throw mirrorUnavailable(error);
    return value;
  });
  const orderIds = ((replies[0] ?? []) as string[]).slice().sort();
  const txState = (replies[1] ?? {}) as Record<string, string>;
  const txRecordBytes = replies[2] as Buffer | null;
  const notified = replies[3] === 1;

  const opened = (await loadRecords(redis, orderIds.map(intentsReadKeys.order))).filter(
    (record) => record !== undefined,
  );
  const txRecord = opened.length === 0 && txRecordBytes ? IntentRecord.decode(txRecordBytes) : undefined;
  const records = opened.length > 0 ? opened : txRecord ? [txRecord] : [];
  const [intents, heads] = await Promise.all([withCurrentHeads(redis, sortByLog(records)), loadHeads(redis, [chain])]);
  return {
    intents,
    transactionStatus: transactionStatusOf(orderIds.length > 0, txState["status"], txRecord?.status, notified),
    asOf: heads.has(chain) ? [heads.get(chain)!] : [],
  };
}

/** The most specific knowledge wins: an Open seen, the projection's tx state, its record, our own notification. */
export function transactionStatusOf(
  hasOrders: boolean,
  txState: string | undefined,
  recordStatus: IntentStatus | undefined,
  notified: boolean,
): TransactionStatus {
  // An Open event means the transaction was mined and succeeded.
  if (hasOrders) return TransactionStatus.TRANSACTION_STATUS_SUCCEEDED;
  if (txState !== undefined && TX_STATES[txState] !== undefined) return TX_STATES[txState];
  if (recordStatus !== undefined && RECORD_STATES[recordStatus] !== undefined) return RECORD_STATES[recordStatus];
  // Notified here but not yet taken in by the projection (Kafka and the projector lag a little).
  if (notified) return TransactionStatus.TRANSACTION_STATUS_PENDING;
  return TransactionStatus.TRANSACTION_STATUS_NOT_FOUND;
}

/** Orders of one transaction in the order their Open logs were emitted. */
function sortByLog(records: IntentRecord[]): IntentRecord[] {
  return records
    .slice()
    .sort((a, b) => (a.opened?.logIndex ?? 0) - (b.opened?.logIndex ?? 0) || a.orderId.localeCompare(b.orderId));
}
