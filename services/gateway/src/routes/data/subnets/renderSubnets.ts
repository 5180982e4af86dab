import { halCollection } from "@platform/http";
import type {
  GetHoldersTopResponse,
  GetSubnetsHistoryResponse,
  GetSubnetsLatestResponse,
  GetValidatorsLatestResponse,
  Holder,
  Subnet,
  Validator,
} from "@platform/proto/data/v1/subnets";
import type { z } from "zod";
import {
  accountBalanceHref,
  accountTransactionsHref,
  emissionsHistoryHref,
  holdersHref,
  poolsHref,
  subnetLinks,
  subnetsHistoryHref,
  subnetsHref,
  validatorsHref,
} from "../shared/links.js";
import {
  accountLink,
  coverageName,
  integer,
  intervalName,
  mechanismName,
  optionalInteger,
  orNull,
  type PageView,
  pageOf,
  renderAccount,
  renderAsOf,
} from "../shared/render.js";
import type {
  HolderSchema,
  HoldersTopSchema,
  SubnetSchema,
  SubnetsHistorySchema,
  SubnetsSchema,
  ValidatorSchema,
  ValidatorsSchema,
} from "./subnetSchemas.js";

/**
 * The subnets group. u64 chain values that are not block numbers or counts (PoW difficulty,
 * adjustment_alpha, weights_version, bonds_moving_average) stay decimal strings: they can exceed
 * 2^53, which a JSON number cannot carry exactly.
 */

function renderSubnet(subnet: Subnet): z.output<typeof SubnetSchema> {
  const { subnet: _self, ...related } = subnetLinks(subnet.netuid);
  const identity = subnet.identity;
  const registration = subnet.registration;
  const hyperparameters = subnet.hyperparameters;
  return {
    _links: { self: { href: subnetsHref(subnet.netuid) }, ...related },
    netuid: subnet.netuid,
    name: orNull(subnet.name),
    symbol: orNull(subnet.symbol),
    identity:
      identity === undefined
        ? null
        : {
            subnet_name: identity.subnetName,
            github_repo: identity.githubRepo,
            subnet_contact: identity.subnetContact,
            subnet_url: identity.subnetUrl,
            discord: identity.discord,
            description: identity.description,
            logo_url: identity.logoUrl,
            additional: identity.additional,
          },
    owner: { coldkey: renderAccount(subnet.owner?.coldkey), hotkey: renderAccount(subnet.owner?.hotkey) },
    registered_at_block: integer(subnet.registeredAtBlock),
    registered_at: orNull(subnet.registeredAt),
    mechanism: mechanismName(subnet.mechanism),
    tempo: subnet.tempo,
    last_epoch_block: integer(subnet.lastEpochBlock),
    next_epoch_block: integer(subnet.nextEpochBlock),
    uid_count: subnet.uidCount,
    max_uids: orNull(subnet.maxUids),
    max_validators: orNull(subnet.maxValidators),
    validators_with_permit: subnet.validatorsWithPermit,
    active_uids: subnet.activeUids,
    registration:
      registration === undefined
        ? null
        : {
            allowed: registration.allowed,
            pow_allowed: registration.powAllowed,
            burn_rao: registration.burnRao,
            min_burn_rao: registration.minBurnRao,
            max_burn_rao: registration.maxBurnRao,
            difficulty: registration.difficulty,
            recycled_total_rao: orNull(registration.recycledTotalRao),
          },
    transfers_enabled: orNull(subnet.transfersEnabled),
    emission_enabled: subnet.emissionEnabled,
    commit_reveal:
      subnet.commitReveal === undefined
        ? null
        : { enabled: subnet.commitReveal.enabled, interval: integer(subnet.commitReveal.interval) },
    liquid_alpha:
      subnet.liquidAlpha === undefined
        ? null
        : {
            enabled: subnet.liquidAlpha.enabled,
            alpha_low: subnet.liquidAlpha.alphaLow,
            alpha_high: subnet.liquidAlpha.alphaHigh,
          },
    yuma3_enabled: subnet.yuma3Enabled,
    hyperparameters:
      hyperparameters === undefined
        ? null
        : {
            rho: hyperparameters.rho,
            kappa: hyperparameters.kappa,
            immunity_period: hyperparameters.immunityPeriod,
            min_allowed_weights: hyperparameters.minAllowedWeights,
            max_weight_limit: hyperparameters.maxWeightLimit,
            weights_version: hyperparameters.weightsVersion,
            weights_rate_limit: integer(hyperparameters.weightsRateLimit),
            activity_cutoff: hyperparameters.activityCutoff,
            adjustment_alpha: hyperparameters.adjustmentAlpha,
            bonds_moving_average: hyperparameters.bondsMovingAverage,
            serving_rate_limit: integer(hyperparameters.servingRateLimit),
            alpha_sigmoid_steepness: hyperparameters.alphaSigmoidSteepness,
          },
    ...(subnet.pool === undefined
      ? {}
      : {
          _embedded: {
            pool: {
              _links: { self: { href: poolsHref(subnet.netuid) } },
              price_tao: subnet.pool.priceTao,
              tao_in_rao: subnet.pool.taoInRao,
              market_cap_rao: subnet.pool.marketCapRao,
            },
          },
        }),
  };
}

export function renderSubnetsLatest(
  answer: GetSubnetsLatestResponse,
  request: PageView,
): z.output<typeof SubnetsSchema> {
  return halCollection({
    path: subnetsHref(),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: { "subnet-pools": { href: poolsHref() } },
    state: { as_of: renderAsOf(answer.asOf) },
    items: answer.subnets.map(renderSubnet),
  });
}

export function renderSubnetsHistory(
  answer: GetSubnetsHistoryResponse,
  request: PageView & { netuid: number },
): z.output<typeof SubnetsHistorySchema> {
  return halCollection({
    path: subnetsHistoryHref(),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: {
      latest: { href: subnetsHref(request.netuid) },
      "emissions-history": { href: emissionsHistoryHref(request.netuid) },
    },
    state: { as_of: renderAsOf(answer.asOf), netuid: request.netuid, interval: intervalName(answer.interval) },
    items: answer.points.flatMap((point) => {
      if (point.subnet === undefined) return [];
      // The latest route's rendering less what a snapshot alone does not tell (derived from other series).
      const {
        _links: _item,
        _embedded: _pool,
        last_epoch_block: _last,
        next_epoch_block: _next,
        validators_with_permit: _permits,
        active_uids: _active,
        ...settings
      } = renderSubnet(point.subnet);
      return [
        {
          bucket_start: point.bucketStart,
          block_number: integer(point.blockNumber),
          timestamp: point.timestamp,
          ...settings,
        },
      ];
    }),
  });
}

function renderValidator(validator: Validator, netuid: number): z.output<typeof ValidatorSchema> {
  const coldkey = accountLink(validator.coldkey);
  const hotkey = accountLink(validator.hotkey);
  return {
    _links: {
      ...(hotkey === undefined ? {} : { hotkey }),
      ...(coldkey === undefined ? {} : { "coldkey-balance": coldkey }),
      subnet: { href: subnetsHref(netuid) },
      holders: { href: holdersHref(netuid) },
    },
    uid: validator.uid,
    hotkey: renderAccount(validator.hotkey),
    coldkey: renderAccount(validator.coldkey),
    identity:
      validator.identity === undefined
        ? null
        : {
            name: validator.identity.name,
            url: validator.identity.url,
            github_repo: validator.identity.githubRepo,
            image: validator.identity.image,
            discord: validator.identity.discord,
            description: validator.identity.description,
            additional: validator.identity.additional,
          },
    validator_permit: validator.validatorPermit,
    active: validator.active,
    registered_at_block: optionalInteger(validator.registeredAtBlock),
    take: orNull(validator.take),
    childkey_take: orNull(validator.childkeyTake),
    alpha_stake_nalpha: validator.alphaStakeNalpha,
    root_stake_rao: orNull(validator.rootStakeRao),
    stake_weight: orNull(validator.stakeWeight),
    total_stake_value_rao: validator.totalStakeValueRao,
    dividends: validator.dividends,
    vtrust: validator.vtrust,
    incentive: validator.incentive,
    consensus: validator.consensus,
    emission_nalpha: validator.emissionNalpha,
    alpha_dividends_nalpha: orNull(validator.alphaDividendsNalpha),
    root_alpha_dividends_nalpha: orNull(validator.rootAlphaDividendsNalpha),
    last_update_block: integer(validator.lastUpdateBlock),
    blocks_since_update: integer(validator.blocksSinceUpdate),
    nominators_count: orNull(validator.nominatorsCount),
    hotkey_dividends_nalpha: orNull(validator.hotkeyDividendsNalpha),
    yield: {
      yield_1h: orNull(validator.yield?.yield1h),
      yield_1d: orNull(validator.yield?.yield1d),
      yield_7d: orNull(validator.yield?.yield7d),
      yield_30d: orNull(validator.yield?.yield30d),
      covered_from_block: optionalInteger(validator.yield?.coveredFromBlock),
      covered_from_time: orNull(validator.yield?.coveredFromTime),
    },
  };
}

export function renderValidatorsLatest(
  answer: GetValidatorsLatestResponse,
  request: PageView & { netuid: number },
): z.output<typeof ValidatorsSchema> {
  return halCollection({
    path: validatorsHref(request.netuid),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: {
      subnet: { href: subnetsHref(request.netuid) },
      holders: { href: holdersHref(request.netuid) },
      pool: { href: poolsHref(request.netuid) },
    },
    state: { as_of: renderAsOf(answer.asOf), netuid: answer.netuid },
    items: answer.validators.map((validator) => renderValidator(validator, request.netuid)),
  });
}

function renderHolder(holder: Holder): z.output<typeof HolderSchema> {
  const coldkey = holder.coldkey?.ss58;
  return {
    _links: coldkey
      ? {
          "account-balance": { href: accountBalanceHref(coldkey) },
          "account-transactions": { href: accountTransactionsHref(coldkey) },
        }
      : {},
    rank: holder.rank,
    coldkey: renderAccount(holder.coldkey),
    hotkey: renderAccount(holder.hotkey),
    alpha_nalpha: holder.alphaNalpha,
    share_of_alpha_out: holder.shareOfAlphaOut,
    value_rao: holder.valueRao,
    positions_count: holder.positionsCount,
    hotkeys: holder.hotkeys.map((holding) => ({
      hotkey: renderAccount(holding.hotkey),
      alpha_nalpha: holding.alphaNalpha,
    })),
    identity_name: orNull(holder.identityName),
  };
}

export function renderHoldersTop(
  answer: GetHoldersTopResponse,
  request: PageView & { netuid: number },
): z.output<typeof HoldersTopSchema> {
  return halCollection({
    path: holdersHref(request.netuid),
    query: request.query,
    cursor: request.cursor,
    page: pageOf(answer.page, request.limit),
    links: {
      subnet: { href: subnetsHref(request.netuid) },
      validators: { href: validatorsHref(request.netuid) },
      pool: { href: poolsHref(request.netuid) },
    },
    state: {
      as_of: renderAsOf(answer.asOf),
      netuid: answer.netuid,
      holders_count: answer.holdersCount,
      alpha_out_nalpha: answer.alphaOutNalpha,
      price_tao: answer.priceTao,
      coverage: coverageName(answer.coverage),
    },
    items: answer.holders.map(renderHolder),
  });
}
