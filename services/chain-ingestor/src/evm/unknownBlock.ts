/**
 * The node does not know the block a read named by hash (EIP-1898): it switched forks since the
 * header was read, or never had it. Nodes word this differently (anvil, geth, erigon), so the test is
 * on the message; a source turns it into a ForkDuringReadError and reads the step again.
 */
export function isUnknownBlockError(error: unknown): boolean {
  const text = String((error as { details?: string })?.details ?? (error as Error)?.message ?? error).toLowerCase();
  return (
    text.includes("not found") ||
    text.includes("unknown block") ||
    text.includes("not canonical") ||
    text.includes("header not found")
  );
}
