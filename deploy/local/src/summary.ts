import type { StackDescriptor } from "./descriptor.js";
import { FUND_DEFAULTS } from "./fundUsage.js";

/** A URL as it may be shown: a password in it (an external server's) is masked. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return url;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, "//***@");
  }
}

/** Where the servers' credentials are, never the credentials themselves. */
function credentials(descriptor: StackDescriptor): string {
  const { redisAdminUrl, natsAdminUrl } = descriptor.infrastructure;
  if (redisAdminUrl === undefined && natsAdminUrl === undefined) return "";
  const secrets = `${descriptor.stateDir}/secrets`;
  return `  each service has its own Redis and NATS user: ${secrets}/<service>-redis/password, <service>-nats/password
  admin (tests and tools): ${secrets}/admin-redis/password, admin-nats/password
`;
}

/**
 * The history database: its URL, the roles, and a psql line that reads the password from the
 * stack's PGPASSFILE (never the password itself).
 */
function history(descriptor: StackDescriptor): string {
  const url = descriptor.infrastructure.postgresUrl;
  if (url === undefined) return "";
  const secrets = `${descriptor.stateDir}/secrets`;
  const asRole = new URL(url);
  asRole.username = "data_query";
  asRole.password = "";
  return `  postgres ${withoutPassword(url)}   (history; roles history_owner, projector, data_query: ${secrets}/<service>-postgres/password)
  psql: PGPASSFILE=${secrets}/postgres-client/pgpass psql '${asRole.toString()}'
`;
}

/**
 * The devnet's own chains (anvil, deployed by this stack): their deployment data file, which the
 * client reads, and the faucet. Nothing for chains given from outside (STACK_CHAINS_FILE).
 */
function devnetTools(descriptor: StackDescriptor): string {
  if (!descriptor.processes.some((entry) => entry.name.startsWith("anvil-"))) return "";
  const { evm, native } = FUND_DEFAULTS;
  const tao = descriptor.substrate === undefined ? "" : `, ${native.tao} TAO for an SS58 one`;
  return `Deployment  ${descriptor.stateDir}/deployment.v1.json   (chains, tokens, FullSettlers, routes: the client's parseDeployment reads it)
Faucet      deploy/local/stack fund <0x address | SS58 address> [--usdc N] [--eth N] [--tao N] [--chain NAME|ID]
            (no option: ${evm.usdc} USDC and ${evm.eth} ETH on every anvil chain for a 0x address${tao})
`;
}

/** The closing summary: where things are and lines to paste. */
export function renderSummary(descriptor: StackDescriptor): string {
  const base = descriptor.gatewayUrl;
  const chainLines = descriptor.chains
    .map((chain) => {
      const contracts = Object.entries({ ...chain.contracts, ...chain.tokens }).map(
        ([name, address]) => `    ${name.padEnd(14)} ${address}`,
      );
      return [
        `  ${chain.name.padEnd(12)} chain id ${String(chain.chainId).padEnd(6)} ${chain.rpcUrl}`,
        ...contracts,
      ].join("\n");
    })
    .join("\n");
  const key = descriptor.demoApiKey
    ? `Demo API key (local only; scopes ${descriptor.demoApiKey.scopes.join(", ")})
  id      ${descriptor.demoApiKey.id}
  secret  ${descriptor.demoApiKey.secret}
`
    : "";
  const tokenLines = descriptor.demoApiKey
    ? `  TOKEN=$(curl -s -X POST ${base}/auth -H 'content-type: application/json' \\
    -d '{"type":"API_KEY","username":"${descriptor.demoApiKey.id}","password":"${descriptor.demoApiKey.secret}"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')
  curl -s '${base}/intents/v1/tc/status?walletAddress=0x52908400098527886e0f7030069857d2e4169ee7' -H "authorization: Bearer $TOKEN"
`
    : `  curl -s '${base}/intents/v1/tc/status?walletAddress=0x52908400098527886e0f7030069857d2e4169ee7'
`;
  const substrate = descriptor.substrate;
  const substrateLines = substrate
    ? `Native network (real Subtensor runtime, spec ${substrate.specVersion}, chopsticks; ${substrate.blockTimeMs > 0 ? `a block every ${substrate.blockTimeMs} ms` : "blocks on demand (dev_newBlock)"})
  ${substrate.name.padEnd(12)} chain id ${String(substrate.chainId).padEnd(6)} ${substrate.rpcUrl}  (HTTP ${substrate.httpUrl})
${substrate.demoAccounts.map((account) => `    ${account.name.padEnd(18)} ${account.ss58}${account.evmH160 ? `  (H160 ${account.evmH160})` : ""}`).join("\n")}
    subnets ${substrate.netuids.join(", ")}
`
    : "";
  // A native coldkey's balance and transactions (what the runtime holds, through the Data API), when a token can be had.
  const coldkey = substrate?.demoAccounts.find((account) => account.role === "coldkey");
  const accountTry =
    coldkey && descriptor.demoApiKey
      ? `  curl -s '${base}/data/v1/accounts/${coldkey.ss58}/balance/latest' -H "authorization: Bearer $TOKEN"
  curl -s '${base}/data/v1/accounts/${coldkey.ss58}/transactions?limit=5' -H "authorization: Bearer $TOKEN"
`
      : "";
  const substrateTry = substrate
    ? `${accountTry}  curl -s ${substrate.httpUrl} -H 'content-type: application/json' -d '{"id":1,"jsonrpc":"2.0","method":"chain_getHeader","params":[]}'
`
    : "";
  const prometheus = descriptor.prometheusUrl
    ? `Prometheus  ${descriptor.prometheusUrl}   (alerts: ${descriptor.prometheusUrl}/alerts; rules and dashboards: deploy/k8s/observability)
`
    : "";
  return `Gateway     ${base}
Reference   ${base}/docs   (OpenAPI: ${base}/openapi.json)
${prometheus}Descriptor  ${descriptor.stateDir}/stack.json
${devnetTools(descriptor)}Logs        deploy/local/stack logs [name]
Chains
${chainLines}
${substrateLines}Infrastructure
  kafka ${descriptor.infrastructure.kafkaBrokers.join(",")}   redis ${withoutPassword(descriptor.infrastructure.redisUrl)}   nats ${withoutPassword(descriptor.infrastructure.natsUrl)}
${history(descriptor)}${credentials(descriptor)}${key}
Try:
  curl -s ${base}/readyz
${tokenLines}${substrateTry}  curl -s ${base}/openapi.json | head -c 400

Stop with: deploy/local/stack stop
`;
}
