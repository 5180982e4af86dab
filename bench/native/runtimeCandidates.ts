/**
 * Which spec-218 build to run: each candidate chain spec (paths as arguments; they come from
 * `scripts/specs/raonet.json` at several commits of opentensor/subtensor) gets a fresh chopsticks,
 * the devnet's seed, then 2 × (tempo + 1) blocks built on demand. Per candidate it prints the seed's
 * time, the time per block against the same node's `chain_getHeader` round trip (the baseline), how
 * many subnet steps the blocks held against the tempo schedule's, whether every step fell on its
 * scheduled block, and the subnets' holders' alpha against `SubnetAlphaOut` after the blocks, with
 * the seed's owner cut (0) and with Finney's 18 %.
 *
 *   cd bench && node --import tsx --conditions=@platform/source native/runtimeCandidates.ts SPEC...
 */
import { basename, join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  connectNativeChain,
  DEMO_TEMPO,
  nativeKeyring,
  nativeTx,
  seedNativeNetwork,
  sendNativeCalls,
} from "@platform/devnet";
import { startChopsticks, tempDir } from "@platform/testing";

const FINNEY_OWNER_CUT = 11_796; // 18 % of u16::MAX

interface CandidateFigures {
  spec: string;
  seedMs: number;
  blockMsMedian: number;
  headerRoundTripMs: number;
  steps: number;
  scheduledSteps: number;
  offSchedule: number;
  excessAlphaNoCut: string;
  excessAlphaFinneyCut: string;
}

async function measure(
  specPath: string,
  ownerCut: number,
): Promise<Omit<CandidateFigures, "excessAlphaNoCut" | "excessAlphaFinneyCut"> & { excess: string }> {
  const node = await startChopsticks({ genesis: specPath, logFile: join(tempDir("candidate").path, "node.log") });
  try {
    const started = performance.now();
    const seeded = await seedNativeNetwork({
      rpcUrl: node.rpcUrl,
      buildBlock: () => node.newBlocks(1),
      tempo: DEMO_TEMPO,
    });
    const seedMs = performance.now() - started;
    const chain = await connectNativeChain(node.rpcUrl);
    try {
      const { api } = chain;
      if (ownerCut > 0) {
        const alice = (await nativeKeyring()).addFromUri("//Alice");
        const sudo = nativeTx(api, "sudo", "sudo")(nativeTx(api, "adminUtils", "sudoSetSubnetOwnerCut")(ownerCut));
        await sendNativeCalls(chain, [{ label: "owner cut", tx: sudo, signer: alice }], {
          buildBlock: () => node.newBlocks(1),
        });
      }
      const query = api.query.subtensorModule!;
      const netuids = [0, seeded.genesisSubnet.netuid, ...seeded.netuids];
      const lastSteps = () =>
        Promise.all(netuids.map(async (netuid) => Number((await query.lastMechansimStepBlock!(netuid)).toString())));
      let before = await lastSteps();
      const blockMs: number[] = [];
      let steps = 0;
      let scheduledSteps = 0;
      let offSchedule = 0;
      for (let built = 0; built < 2 * (DEMO_TEMPO + 1); built++) {
        const t0 = performance.now();
        await node.newBlocks(1);
        blockMs.push(performance.now() - t0);
        const block = Number((await node.request<{ number: string }>("chain_getHeader")).number);
        const after = await lastSteps();
        netuids.forEach((netuid, index) => {
          const scheduled = DEMO_TEMPO - ((block + netuid + 1) % (DEMO_TEMPO + 1)) === 0;
          const stepped = after[index] === block && before[index] !== block;
          if (scheduled) scheduledSteps++;
          if (stepped) steps++;
          if (stepped !== scheduled) offSchedule++;
        });
        before = after;
      }
      const roundTrips: number[] = [];
      for (let i = 0; i < 50; i++) {
        const t0 = performance.now();
        await node.request("chain_getHeader");
        roundTrips.push(performance.now() - t0);
      }
      const held = new Map<number, bigint>();
      for (const [key, value] of (await query.totalHotkeyAlpha!.entries()) as unknown as [
        { args: { toString(): string }[] },
        { toString(): string },
      ][]) {
        const netuid = Number(key.args[1]!.toString());
        held.set(netuid, (held.get(netuid) ?? 0n) + BigInt(value.toString()));
      }
      let excess = 0n;
      for (const netuid of netuids.slice(1)) {
        const out = BigInt((await query.subnetAlphaOut!(netuid)).toString());
        const over = (held.get(netuid) ?? 0n) - out;
        if (over > excess) excess = over;
      }
      return {
        spec: basename(specPath),
        seedMs,
        blockMsMedian: median(blockMs),
        headerRoundTripMs: median(roundTrips),
        steps,
        scheduledSteps,
        offSchedule,
        excess: `${Number(excess) / 1e9} α`,
      };
    } finally {
      await chain.close();
    }
  } finally {
    await node.stop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const specs = process.argv.slice(2);
if (specs.length === 0) throw new Error("usage: runtimeCandidates.ts SPEC.json...");
const rows: CandidateFigures[] = [];
for (const spec of specs) {
  try {
    const noCut = await measure(spec, 0);
    const finneyCut = await measure(spec, FINNEY_OWNER_CUT);
    const { excess, ...figures } = noCut;
    rows.push({ ...figures, excessAlphaNoCut: excess, excessAlphaFinneyCut: finneyCut.excess });
  } catch (error) {
    console.log(`${basename(spec)}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
}
console.log(
  `tempo ${DEMO_TEMPO}, ${2 * (DEMO_TEMPO + 1)} blocks each; block time as a multiple of a chain_getHeader round trip`,
);
console.table(
  rows.map((row) => ({
    spec: row.spec,
    "seed s": (row.seedMs / 1000).toFixed(1),
    "block ms (median)": row.blockMsMedian.toFixed(0),
    "÷ header round trip": (row.blockMsMedian / row.headerRoundTripMs).toFixed(0),
    "steps / scheduled": `${row.steps} / ${row.scheduledSteps}`,
    "off schedule": row.offSchedule,
    "max holders − AlphaOut, cut 0": row.excessAlphaNoCut,
    "…, cut 18 %": row.excessAlphaFinneyCut,
  })),
);
