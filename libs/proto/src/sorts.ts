import { EmissionSort, PoolSort } from "./gen/data/v1/market.js";
import { NeuronSort, SubnetSort, ValidatorSort } from "./gen/data/v1/subnets.js";

/**
 * The sort options of a latest list, declared once beside the proto enum they stand for: the names
 * the API accepts (in the order its documents list them), the proto value each is sent as, and the
 * defaults (the key and the direction) that the enum's UNSPECIFIED and an absent order stand for.
 * The gateway builds its query parameter from `values` and sends `sortValueOf`; data-query reads a
 * request's sort back with `sortNameOf`, so both sides take the names from one table.
 */
export interface SortOptions<N extends string, V extends number> {
  /** Each accepted name and its proto value, in the order the API documents them. */
  readonly values: Readonly<Record<N, V>>;
  /** The enum's UNSPECIFIED: what is sent when no sort is asked for. */
  readonly unspecified: V;
  /** The key UNSPECIFIED stands for. */
  readonly defaultName: N;
  /** The direction an unset order stands for. */
  readonly defaultOrder: "asc" | "desc";
}

/** The names of a sort table. */
export type SortName<O> = O extends SortOptions<infer N, number> ? N : never;
/** The proto values of a sort table. */
export type SortValue<O> = O extends SortOptions<string, infer V> ? V : never;

/** The proto value of a sort name; UNSPECIFIED for none. */
export function sortValueOf<N extends string, V extends number>(options: SortOptions<N, V>, name: N | undefined): V {
  return name === undefined ? options.unspecified : options.values[name];
}

/** The name a proto value stands for (UNSPECIFIED is the default's); undefined for a value the table does not have. */
export function sortNameOf<N extends string, V extends number>(options: SortOptions<N, V>, value: V): N | undefined {
  if (value === options.unspecified) return options.defaultName;
  return (Object.keys(options.values) as N[]).find((name) => options.values[name] === value);
}

/** `GET /data/v1/subnet-pools/latest`. */
export const POOL_SORTS: SortOptions<
  "market_cap" | "netuid" | "price" | "tao_in" | "alpha_in" | "alpha_out" | "volume_24h" | "price_change_24h",
  PoolSort
> = {
  values: {
    market_cap: PoolSort.POOL_SORT_MARKET_CAP,
    netuid: PoolSort.POOL_SORT_NETUID,
    price: PoolSort.POOL_SORT_PRICE,
    tao_in: PoolSort.POOL_SORT_TAO_IN,
    alpha_in: PoolSort.POOL_SORT_ALPHA_IN,
    alpha_out: PoolSort.POOL_SORT_ALPHA_OUT,
    volume_24h: PoolSort.POOL_SORT_VOLUME_24H,
    price_change_24h: PoolSort.POOL_SORT_PRICE_CHANGE_24H,
  },
  unspecified: PoolSort.POOL_SORT_UNSPECIFIED,
  defaultName: "market_cap",
  defaultOrder: "desc",
};

/** `GET /data/v1/subnet-emissions/latest`. */
export const EMISSION_SORTS: SortOptions<"tao_emission" | "netuid" | "alpha_out_emission" | "share", EmissionSort> = {
  values: {
    tao_emission: EmissionSort.EMISSION_SORT_TAO_EMISSION,
    netuid: EmissionSort.EMISSION_SORT_NETUID,
    alpha_out_emission: EmissionSort.EMISSION_SORT_ALPHA_OUT_EMISSION,
    share: EmissionSort.EMISSION_SORT_SHARE,
  },
  unspecified: EmissionSort.EMISSION_SORT_UNSPECIFIED,
  defaultName: "tao_emission",
  defaultOrder: "desc",
};

/** `GET /data/v1/subnets/latest`. */
export const SUBNET_SORTS: SortOptions<
  "netuid" | "registered_at" | "market_cap" | "tao_emission" | "uid_count",
  SubnetSort
> = {
  values: {
    netuid: SubnetSort.SUBNET_SORT_NETUID,
    registered_at: SubnetSort.SUBNET_SORT_REGISTERED_AT,
    market_cap: SubnetSort.SUBNET_SORT_MARKET_CAP,
    tao_emission: SubnetSort.SUBNET_SORT_TAO_EMISSION,
    uid_count: SubnetSort.SUBNET_SORT_UID_COUNT,
  },
  unspecified: SubnetSort.SUBNET_SORT_UNSPECIFIED,
  defaultName: "netuid",
  defaultOrder: "asc",
};

/** `GET /data/v1/subnets/{netuid}/validators/latest`. */
export const VALIDATOR_SORTS: SortOptions<
  | "stake"
  | "alpha_stake"
  | "root_stake"
  | "dividends"
  | "vtrust"
  | "take"
  | "uid"
  | "emission"
  | "yield_1h"
  | "yield_1d"
  | "yield_7d"
  | "yield_30d",
  ValidatorSort
> = {
  values: {
    stake: ValidatorSort.VALIDATOR_SORT_STAKE,
    alpha_stake: ValidatorSort.VALIDATOR_SORT_ALPHA_STAKE,
    root_stake: ValidatorSort.VALIDATOR_SORT_ROOT_STAKE,
    dividends: ValidatorSort.VALIDATOR_SORT_DIVIDENDS,
    vtrust: ValidatorSort.VALIDATOR_SORT_VTRUST,
    take: ValidatorSort.VALIDATOR_SORT_TAKE,
    uid: ValidatorSort.VALIDATOR_SORT_UID,
    emission: ValidatorSort.VALIDATOR_SORT_EMISSION,
    yield_1h: ValidatorSort.VALIDATOR_SORT_YIELD_1H,
    yield_1d: ValidatorSort.VALIDATOR_SORT_YIELD_1D,
    yield_7d: ValidatorSort.VALIDATOR_SORT_YIELD_7D,
    yield_30d: ValidatorSort.VALIDATOR_SORT_YIELD_30D,
  },
  unspecified: ValidatorSort.VALIDATOR_SORT_UNSPECIFIED,
  defaultName: "stake",
  defaultOrder: "desc",
};

/** `GET /data/v1/subnets/{netuid}/neurons/latest`. */
export const NEURON_SORTS: SortOptions<"incentive" | "emission" | "stake" | "dividends" | "uid", NeuronSort> = {
  values: {
    incentive: NeuronSort.NEURON_SORT_INCENTIVE,
    emission: NeuronSort.NEURON_SORT_EMISSION,
    stake: NeuronSort.NEURON_SORT_STAKE,
    dividends: NeuronSort.NEURON_SORT_DIVIDENDS,
    uid: NeuronSort.NEURON_SORT_UID,
  },
  unspecified: NeuronSort.NEURON_SORT_UNSPECIFIED,
  defaultName: "incentive",
  defaultOrder: "desc",
};
