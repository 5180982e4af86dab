import type { RunningStack } from "@platform/local-stack";
import { mixAccounts, mixPath } from "./mix.js";
import type { HalBody } from "./routes.js";

export interface Subjects {
  accounts: string[];
  seededAccounts: number;
  netuids: number[];
  /** Subnets the read models list that the mix leaves out, and why. */
  leftOut: Array<{ netuid: number; why: string }>;
}

/**
 * The accounts (the native network's seeded ones first, `subject` with its full page of
 * transactions at the top, then accounts never on chain up to `accounts`) and the subnets of the
 * mix: every netuid subnets/latest lists whose validators, holders and pool all answer 200, the
 * seed's own subnets (which have neurons) ranked first.
 */
export async function mixSubjects(options: {
  stack: RunningStack;
  gatewayUrl: string;
  subject: string;
  headers: Record<string, string>;
  accounts: number;
}): Promise<Subjects> {
  const { gatewayUrl, subject, headers } = options;
  const substrate = options.stack.descriptor.substrate!;
  const seeded = [subject, ...substrate.demoAccounts.map((account) => account.ss58).filter((ss58) => ss58 !== subject)];
  const listed = (await (await fetch(`${gatewayUrl}/data/v1/subnets/latest`, { headers })).json()) as HalBody;
  const all = ((listed._embedded?.items ?? []) as Array<{ netuid: number }>).map((item) => item.netuid);
  const ranked = [
    ...substrate.netuids.filter((netuid) => all.includes(netuid)),
    ...all.filter((netuid) => !substrate.netuids.includes(netuid)).sort((left, right) => left - right),
  ];
  const netuids: number[] = [];
  const leftOut: Subjects["leftOut"] = [];
  for (const netuid of ranked) {
    const statuses = await Promise.all(
      (["validators", "holders", "subnetPool"] as const).map(
        async (route) => (await fetch(`${gatewayUrl}${mixPath(route, subject, netuid)}`, { headers })).status,
      ),
    );
    if (statuses.every((status) => status === 200)) netuids.push(netuid);
    else leftOut.push({ netuid, why: `validators, holders, pool answered ${statuses.join(", ")}` });
  }
  if (netuids.length === 0) throw new Error(`no subnet answers every subnet route: ${JSON.stringify(leftOut)}`);
  return { accounts: mixAccounts(seeded, options.accounts), seededAccounts: seeded.length, netuids, leftOut };
}
