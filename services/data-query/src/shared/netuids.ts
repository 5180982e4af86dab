import { invalidArgument, notFound } from "@platform/errors";

/** Validates requested netuids (0..65535, at most `max`) and checks each is known. */
export function checkNetuids(requested: readonly number[], known: ReadonlySet<number>, max: number): number[] {
  if (requested.length > max)
    throw invalidArgument("INVALID_PARAMETER", `netuid lists at most ${max} subnets`, { parameter: "netuid" });
  const unique = [...new Set(requested)];
  for (const netuid of unique) {
    if (!Number.isInteger(netuid) || netuid < 0 || netuid > 65_535)
      throw invalidArgument("INVALID_PARAMETER", "netuid must be an integer between 0 and 65535", {
        parameter: "netuid",
      });
  }
  const missing = unique.filter((netuid) => !known.has(netuid));
  if (missing.length > 0) throw netuidNotFound(missing);
  return unique;
}

export const netuidNotFound = (netuids: readonly number[]) =>
  notFound("NETUID_NOT_FOUND", `no subnet with netuid ${netuids.join(", ")}`, { netuids: [...netuids] });

export const toNetuids = (members: readonly string[]): Set<number> =>
  new Set(members.map(Number).filter((value) => Number.isInteger(value)));
