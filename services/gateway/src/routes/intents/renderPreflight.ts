import { CheckStatus, type PreflightResponse } from "@platform/proto/intents/v1/intents";
import type { z } from "zod";
import type { PreflightSchema } from "./intentAnswers.js";
import { intentHref, renderAsOf } from "./renderIntent.js";

const CHECK_STATUSES: Partial<Record<CheckStatus, "pass" | "fail" | "warn" | "skipped">> = {
  [CheckStatus.CHECK_STATUS_PASS]: "pass",
  [CheckStatus.CHECK_STATUS_FAIL]: "fail",
  [CheckStatus.CHECK_STATUS_WARN]: "warn",
  [CheckStatus.CHECK_STATUS_SKIPPED]: "skipped",
};

/** The public JSON of a preflight: named checks with pass|fail|warn|skipped, expected and actual values. */
export function renderPreflight(answer: PreflightResponse): Omit<z.output<typeof PreflightSchema>, "userAddress"> {
  return {
    _links: answer.orderId
      ? { intent: { href: intentHref(answer.orderId), title: "The order's mirrored status once it is opened" } }
      : {},
    ok: answer.ok,
    orderId: answer.orderId ?? null,
    checks: answer.checks.map((check) => ({
      name: check.name,
      status: CHECK_STATUSES[check.status] ?? "skipped",
      expected: check.expected ?? null,
      actual: check.actual ?? null,
      detail: check.message,
    })),
    asOf: answer.asOf.map(renderAsOf),
  };
}
