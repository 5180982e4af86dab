import { formatU16Ratio } from "@platform/subtensor";
import { expect, it } from "vitest";
import type { DirectSubnet, RuntimeReads } from "./nativeRuntime.js";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface NativeSubnetsContext {
  /** GET through the gateway with a data:read token, expecting 200. */
  get(path: string): Promise<Json>;
  runtime(): RuntimeReads;
  /** The block as_of names, checked against the chain (number, hash, time); its hash. */
  asOfHash(body: Json): Promise<string>;
}

/**
 * A whole collection in one page (the limit is above what the devnet holds), so every item is of
 * the block its as_of names: blocks keep landing while the test reads.
 */
async function all(context: NativeSubnetsContext, path: string): Promise<{ first: Json; items: Json[] }> {
  const first = await context.get(path);
  expect(first._links.next, `${path} in one page`).toBeUndefined();
  return { first, items: [...(first._embedded.items as Json[])] };
}

const ratio = (raw: number) => formatU16Ratio(BigInt(raw));
const account = (publicKey: string | undefined) =>
  publicKey === undefined || /^0x0+$/.test(publicKey) ? null : publicKey;

/** The runtime's reads the subnet tests share: each subnet at an answer's as_of, and every alpha position of a block, read once. */
interface SubnetReads {
  direct(body: Json): Promise<Map<number, DirectSubnet>>;
  holders(blockHash: string): ReturnType<RuntimeReads["holders"]>;
}

/**
 * The subnet routes of the Data API against the real runtime: every value equals a direct read of
 * the runtime's storage (through @polkadot/api, not the service's client) at the block the answer's
 * as_of names. Registered as `it`s inside the caller's describe, so they share its stack.
 */
export function nativeSubnetTests(context: NativeSubnetsContext): void {
  // Every position of a block asks the runtime API once per coldkey: read each block once.
  const holdersAt = new Map<string, ReturnType<RuntimeReads["holders"]>>();
  const reads: SubnetReads = {
    holders(blockHash) {
      if (!holdersAt.has(blockHash)) holdersAt.set(blockHash, context.runtime().holders(blockHash));
      return holdersAt.get(blockHash)!;
    },
    async direct(body) {
      return new Map(
        (await context.runtime().subnets(await context.asOfHash(body))).map(
          (subnet) => [subnet.netuid, subnet] as const,
        ),
      );
    },
  };
  subnetsLatestTest(context, reads);
  subnetPoolsLatestTest(context);
  validatorsLatestTest(context, reads);
  subnetEmissionsLatestTest(context, reads);
  holdersTopTest(context, reads);
}

/** subnets/latest against each subnet's storage. */
function subnetsLatestTest(context: NativeSubnetsContext, { direct }: SubnetReads): void {
  it("subnets/latest: owner, identity, registration, settings, hyperparameters, epochs and UID counts from storage", async () => {
    const { first, items } = await all(context, "/data/v1/subnets/latest?limit=256");
    const subnets = await direct(first);
    expect(items.map((item) => item.netuid)).toEqual([...subnets.keys()]);
    for (const item of items) {
      const subnet = subnets.get(item.netuid)!;
      const raw = subnet.items;
      const where = `subnet ${item.netuid}`;
      expect(item, where).toMatchObject({
        name: subnet.identityName === undefined || subnet.identityName === "" ? null : subnet.identityName,
        symbol: subnet.symbol,
        owner: {
          coldkey: account(raw.subnetOwner) === null ? null : { public_key: raw.subnetOwner },
          hotkey: account(raw.subnetOwnerHotkey) === null ? null : { public_key: raw.subnetOwnerHotkey },
        },
        registered_at_block: Number(raw.networkRegisteredAt),
        mechanism: raw.subnetMechanism === "1" ? "dynamic" : "stable",
        tempo: Number(raw.tempo),
        last_epoch_block: Number(raw.lastMechansimStepBlock),
        uid_count: Number(raw.subnetworkN),
        max_uids: Number(raw.maxAllowedUids),
        max_validators: Number(raw.maxAllowedValidators),
        validators_with_permit: subnet.neurons.filter((neuron) => neuron.validatorPermit).length,
        active_uids: subnet.neurons.filter((neuron) => neuron.active).length,
        registration: {
          allowed: raw.networkRegistrationAllowed === "true",
          pow_allowed: raw.networkPowRegistrationAllowed === "true",
          burn_rao: raw.burn,
          min_burn_rao: raw.minBurn,
          max_burn_rao: raw.maxBurn,
          difficulty: raw.difficulty,
          recycled_total_rao: raw.raoRecycledForRegistration,
        },
        emission_enabled: item.netuid !== 0 && BigInt(raw.emissionValues!) > 0n,
        commit_reveal: { enabled: raw.commitRevealWeightsEnabled === "true", interval: Number(raw.revealPeriodEpochs) },
        liquid_alpha: {
          enabled: raw.liquidAlphaOn === "true",
          alpha_low: ratio(subnet.alphaValues[0]),
          alpha_high: ratio(subnet.alphaValues[1]),
        },
        hyperparameters: {
          rho: Number(raw.rho),
          kappa: Number(raw.kappa),
          immunity_period: Number(raw.immunityPeriod),
          min_allowed_weights: Number(raw.minAllowedWeights),
          max_weight_limit: Number(raw.maxWeightsLimit),
          weights_version: raw.weightsVersionKey,
          weights_rate_limit: Number(raw.weightsSetRateLimit),
          activity_cutoff: Number(raw.activityCutoff),
          adjustment_alpha: raw.adjustmentAlpha,
          bonds_moving_average: raw.bondsMovingAverage,
          serving_rate_limit: Number(raw.servingRateLimit),
        },
      });
      expect(item._embedded.pool.price_tao, where).toBe(
        await context.runtime().priceTao(first.as_of.block_hash, item.netuid),
      );
    }
    // The seed named subnets and registered neurons: the comparison went through identities and metagraphs.
    expect(items.some((item) => item.name !== null && item.uid_count > 1)).toBe(true);
  });
}

/** subnet-pools/latest against each pool's reserves. */
function subnetPoolsLatestTest(context: NativeSubnetsContext): void {
  it("subnet-pools/latest: every pool's reserves, issuance and price from SubnetTAO, SubnetAlphaIn and SubnetAlphaOut", async () => {
    const { first, items } = await all(
      context,
      "/data/v1/subnet-pools/latest?include_root=true&sort=netuid&order=asc&limit=256",
    );
    const blockHash = await context.asOfHash(first);
    const pools = await context.runtime().pools(blockHash);
    expect(items.map((item) => item.netuid)).toEqual(pools.map((pool) => pool.netuid));
    for (const [index, item] of items.entries()) {
      const pool = pools[index]!;
      expect(item, `pool ${item.netuid}`).toMatchObject({
        mechanism: pool.mechanism === 1 ? "dynamic" : "stable",
        tao_in_rao: pool.taoIn,
        alpha_in_nalpha: pool.alphaIn,
        alpha_out_nalpha: pool.alphaOut,
        alpha_issuance_nalpha: (BigInt(pool.alphaIn) + BigInt(pool.alphaOut)).toString(),
        price_tao: await context.runtime().priceTao(blockHash, item.netuid),
        // Spec 218 keeps no moving price: unknown, not zero.
        moving_price_tao: null,
      });
      // Nor SubnetVolume: the volume is the sum of the pool's stake events from volume_since_block on.
      expect(item.volume_total_rao, `pool ${item.netuid} volume`).toMatch(/^[0-9]+$/);
      expect(item.volume_since_block, `pool ${item.netuid} volume since`).toBeLessThanOrEqual(item.block_number);
    }
  });
}

/** validators/latest against each subnet's metagraph. */
function validatorsLatestTest(context: NativeSubnetsContext, { direct }: SubnetReads): void {
  it("validators/latest: every UID of every subnet with its metagraph vectors, stakes, take and coldkey", async () => {
    const subnets = await direct(await context.get("/data/v1/subnets/latest"));
    let compared = 0;
    for (const netuid of subnets.keys()) {
      const { first, items } = await all(
        context,
        `/data/v1/subnets/${netuid}/validators/latest?permit_only=false&sort=uid&order=asc&limit=256`,
      );
      const subnet = (await direct(first)).get(netuid)!;
      // Without the permit filter the route lists every UID holding stake; compare exactly those.
      const staked = subnet.neurons.filter((neuron) => BigInt(neuron.alphaStake) > 0n || BigInt(neuron.rootStake) > 0n);
      expect(
        items.map((item) => item.uid),
        `subnet ${netuid} uids`,
      ).toEqual(staked.map((neuron) => neuron.uid));
      items.forEach((item, index) => {
        const neuron = staked[index]!;
        expect(item, `subnet ${netuid} uid ${neuron.uid}`).toMatchObject({
          hotkey: { public_key: neuron.hotkey },
          coldkey: account(neuron.coldkey) === null ? null : { public_key: neuron.coldkey },
          validator_permit: neuron.validatorPermit,
          active: neuron.active,
          registered_at_block: Number(neuron.registeredAt),
          take: ratio(neuron.take),
          alpha_stake_nalpha: neuron.alphaStake,
          root_stake_rao: neuron.rootStake,
          dividends: ratio(neuron.dividends),
          incentive: ratio(neuron.incentive),
          consensus: ratio(neuron.consensus),
          vtrust: ratio(neuron.vtrust),
          emission_nalpha: neuron.emission,
          last_update_block: Number(neuron.lastUpdate),
        });
        compared += 1;
      });
    }
    expect(compared).toBeGreaterThan(3);
  });
}

/** subnet-emissions/latest against EmissionValues and the block emission. */
function subnetEmissionsLatestTest(context: NativeSubnetsContext, { direct }: SubnetReads): void {
  it("subnet-emissions/latest: each subnet's TAO injection of the block, the block emission and epochs; no alpha emission where the runtime keeps none", async () => {
    const { first, items } = await all(context, "/data/v1/subnet-emissions/latest?sort=netuid&order=asc");
    const subnets = await direct(first);
    expect(items.map((item) => item.netuid)).toEqual([...subnets.keys()]);
    const totals = await context.runtime().networkTotals(first.as_of.block_hash);
    expect(first.block_emission_rao).toBe(totals.blockEmission);
    for (const item of items) {
      const raw = subnets.get(item.netuid)!.items;
      expect(item, `emission of subnet ${item.netuid}`).toMatchObject({
        tao_in_emission_rao: raw.emissionValues,
        emission_enabled: item.netuid !== 0 && BigInt(raw.emissionValues!) > 0n,
        alpha_in_emission_nalpha: null,
        alpha_out_emission_nalpha: null,
        tempo: Number(raw.tempo),
        // The map's default 0 is "never stepped", which this route shows as null: whether the root
        // subnet has stepped yet depends on how many blocks the stack has made by now.
        last_epoch_block: raw.lastMechansimStepBlock === "0" ? null : Number(raw.lastMechansimStepBlock),
      });
    }
    expect(items.some((item) => BigInt(item.tao_in_emission_rao) > 0n)).toBe(true);
  });
}

/** holders/top against StakeInfo's positions. */
function holdersTopTest(context: NativeSubnetsContext, { direct, holders }: SubnetReads): void {
  it("holders/top: every alpha position of each subnet, hotkeys registered there or not, as StakeInfo values them", async () => {
    const subnets = await direct(await context.get("/data/v1/subnets/latest"));
    // Every subnet's answer first, back to back (they mostly share one as_of block), then the
    // runtime's positions once per block they name: StakeInfo is a runtime call per coldkey.
    const answers = [];
    for (const netuid of subnets.keys())
      answers.push({
        netuid,
        ...(await all(context, `/data/v1/subnets/${netuid}/holders/top?group_by=position&limit=500`)),
      });
    let unregistered = 0;
    for (const { netuid, first, items } of answers) {
      expect(first.coverage).toBe("complete");
      const asOf = await context.asOfHash(first);
      const positions = (await holders(asOf)).get(netuid) ?? [];
      const order = (a: { alphaNalpha: string; coldkey: string; hotkey: string }, b: typeof a) =>
        BigInt(a.alphaNalpha) === BigInt(b.alphaNalpha)
          ? a.coldkey + a.hotkey < b.coldkey + b.hotkey
            ? -1
            : 1
          : BigInt(a.alphaNalpha) > BigInt(b.alphaNalpha)
            ? -1
            : 1;
      const expected = positions.filter((position) => BigInt(position.alphaNalpha) > 0n).sort(order);
      expect(
        items.map((item) => ({
          coldkey: item.coldkey.public_key,
          hotkey: item.hotkey.public_key,
          alphaNalpha: item.alpha_nalpha,
        })),
        `holders of subnet ${netuid} at ${first.as_of.block_number}`,
      ).toEqual(expected);
      expect(first.holders_count).toBe(new Set(expected.map((position) => position.coldkey)).size);
      const registered = new Set((await direct(first)).get(netuid)!.neurons.map((neuron) => neuron.hotkey));
      if (netuid !== 0) unregistered += expected.filter((position) => !registered.has(position.hotkey)).length;
    }
    // The seed moved alpha onto a subnet through a hotkey registered only on another one.
    expect(unregistered).toBeGreaterThan(0);
    // StakeInfo per coldkey is a runtime call chopsticks interprets: 23 s in one CI run, over 60 s
    // in another at load 15.
  }, 180_000);
}
