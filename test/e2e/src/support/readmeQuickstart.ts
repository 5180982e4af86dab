import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEPLOYMENT_FILE_NAME } from "@platform/deployment-data";
import { fundAccount, parseFundArgs, repoRoot, type StackDescriptor } from "@platform/local-stack";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { compileConsumer, installedClient, runConsumer } from "./clientPackage.js";

/*
 * The client README's intents quickstart, run as an integrator runs it: the block marked
 * `<!-- example: intents-quickstart -->` is copied as it stands into a project outside the
 * workspace where the packed client is installed with npm, compiled in strict mode against the
 * package's declarations (every identifier defined, imports explicit), and run with Node against a
 * stack, with a fresh key the devnet faucet funded.
 */

const README = join(repoRoot, "libs/client/README.md");
export const QUICKSTART_MARKER = "<!-- example: intents-quickstart -->";

/** The marked block of the README: exactly one, a ```ts fence right after the marker. */
export function readmeQuickstart(readme = readFileSync(README, "utf8")): string {
  const blocks = [...readme.matchAll(/<!-- example: intents-quickstart -->\n```ts\n([\s\S]*?)\n```/g)];
  if (blocks.length !== 1)
    throw new Error(
      `the client README has ${blocks.length} blocks marked ${QUICKSTART_MARKER} (a \`\`\`ts fence right after it); one is needed`,
    );
  return `${blocks[0]![1]!}\n`;
}

function fundRequest(args: string[]) {
  const parsed = parseFundArgs(args);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.request;
}

export interface QuickstartRun {
  output: string;
  /** The wallet the run used: a fresh key, funded by the faucet. */
  address: `0x${string}`;
  elapsedMs: { fund: number; compile: number; run: number };
}

/** Runs the README's quickstart against `descriptor`'s stack with the API key given. */
export async function runReadmeQuickstart(
  descriptor: StackDescriptor,
  apiKey: { id: string; secret: string },
): Promise<QuickstartRun> {
  const privateKey = generatePrivateKey();
  const { address } = privateKeyToAccount(privateKey);
  const origin = descriptor.chains.find((chain) => chain.chainId === 31337)!;
  let started = Date.now();
  const [client] = await Promise.all([
    installedClient(),
    // The README's own first step: `deploy/local/stack fund <address>`, with its defaults.
    fundAccount(descriptor, fundRequest([address])),
  ]);
  const fund = Date.now() - started;
  started = Date.now();
  const dir = compileConsumer(client, readmeQuickstart(), {
    types: ["node"],
    // The package's declarations are the tarball test's to check (responseConformance.test.ts).
    checkDeclarations: false,
  });
  const compile = Date.now() - started;
  started = Date.now();
  const output = await runConsumer(
    dir,
    {
      API_URL: descriptor.gatewayUrl,
      API_KEY_ID: apiKey.id,
      API_KEY_SECRET: apiKey.secret,
      PRIVATE_KEY: privateKey,
      DEPLOYMENT_FILE: join(descriptor.stateDir, DEPLOYMENT_FILE_NAME),
      ORIGIN_RPC_URL: origin.rpcUrl,
    },
    150_000,
  );
  return { output, address, elapsedMs: { fund, compile, run: Date.now() - started } };
}
