import type { GrpcServiceRegistration } from "@platform/grpc";
import { unaryHandler } from "@platform/grpc";
import type { HistoryDb } from "@platform/history";
import type { Logger } from "@platform/log";
import {
  AccountsServiceService,
  type GetBalanceHistoryRequest,
  type GetBalanceHistoryResponse,
  type GetBalanceLatestRequest,
  type GetBalanceLatestResponse,
  type ListTransactionsRequest,
  type ListTransactionsResponse,
} from "@platform/proto/data/v1/accounts";
import type { Redis } from "@platform/store";
import { getBalanceHistory } from "./balanceHistory.js";
import { getBalanceLatest } from "./balanceLatest.js";
import { listTransactions } from "./transactions.js";

export const ACCOUNTS_SERVICE_NAME = "platform.data.v1.AccountsService";

/** The AccountsService over the accounts read model (and the market projection's prices). */
export function accountsGrpcService(deps: {
  redis: Redis;
  log: Logger;
  /** The history database: balance history and transactions are read there (Redis keeps the newest points only). */
  history?: HistoryDb | undefined;
}): GrpcServiceRegistration {
  const { redis, log, history } = deps;
  return {
    name: ACCOUNTS_SERVICE_NAME,
    definition: AccountsServiceService,
    implementation: {
      getBalanceLatest: unaryHandler<GetBalanceLatestRequest, GetBalanceLatestResponse>(
        log,
        "GetBalanceLatest",
        (request) => getBalanceLatest(redis, request, history),
      ),
      getBalanceHistory: unaryHandler<GetBalanceHistoryRequest, GetBalanceHistoryResponse>(
        log,
        "GetBalanceHistory",
        (request) => getBalanceHistory(redis, request, Date.now(), history),
      ),
      listTransactions: unaryHandler<ListTransactionsRequest, ListTransactionsResponse>(
        log,
        "ListTransactions",
        (request) => listTransactions(redis, request, Date.now(), history),
      ),
    },
  };
}
