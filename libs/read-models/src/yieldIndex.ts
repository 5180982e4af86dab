import type { SeriesPoint } from "./series.js";

/**
 * A subnet's yield index at an epoch block (subnetsKeys.yieldIndexPoints): per hotkey, the sum over
 * every epoch seen of `dividends × (1 − take) ÷ (alpha stake + TaoWeight × root stake)`, what the
 * epoch paid the hotkey's nominators per unit of its stake weight (alpha per alpha). The
 * difference of two points is what a nominator earned per alpha staked between them.
 *
 * A point's `p` is base64 of `{"e": <epoch block>, "i": {<hotkey 0x public key>: <index units>}}`,
 * each index an integer string of units of 10^-INDEX_SCALE (exact, no float anywhere).
 */
export interface YieldIndex {
  /** The epoch block this point counted (the newest one). */
  epoch: number;
  /** Cumulative index per hotkey public key, in units of 10^-INDEX_SCALE. */
  index: Map<string, bigint>;
}

/** Digits after the point an index keeps; each epoch's increment is truncated to them. */
export const INDEX_SCALE = 24;

export function encodeYieldIndex(value: YieldIndex): string {
  const index = Object.fromEntries([...value.index].map(([hotkey, units]) => [hotkey, units.toString()]));
  return Buffer.from(JSON.stringify({ e: value.epoch, i: index })).toString("base64");
}

export function decodeYieldIndex(point: Pick<SeriesPoint, "p">): YieldIndex {
  const parsed = JSON.parse(Buffer.from(point.p, "base64").toString("utf8")) as {
    e: number;
    i: Record<string, string>;
  };
  return {
    epoch: parsed.e,
    index: new Map(Object.entries(parsed.i).map(([hotkey, units]) => [hotkey, BigInt(units)])),
  };
}

/** What one epoch's metagraph says of a hotkey, as the ingestor publishes it (NeuronState). */
export interface EpochDividends {
  /** `HotkeyDividendsPerSubnet`: the epoch's dividends to the hotkey before its take, nalpha. */
  dividendsNalpha: string;
  /** Delegate take, decimal in [0, 1]; absent counts as 0. */
  take: string | undefined;
  alphaStakeNalpha: string;
  rootStakeRao: string | undefined;
}

/**
 * One epoch's increment of a hotkey's index, in units of 10^-INDEX_SCALE, truncated:
 * `dividends × (1 − take) ÷ (alpha + taoWeight × root)`. Spec 218's coinbase splits what is left
 * after the take between the alpha stake and TaoWeight × the root stake, so this is what an alpha
 * nominator earned per alpha, and a root nominator per unit of TaoWeight × root stake. The stakes
 * are those of the epoch block's metagraph, after the payout. 0 without stake weight.
 */
export function epochIncrement(neuron: EpochDividends, taoWeight: string | undefined): bigint {
  const dividends = BigInt(neuron.dividendsNalpha || "0");
  if (dividends <= 0n) return 0n;
  const take = decimalOf(neuron.take ?? "0");
  const weight = decimalOf(taoWeight ?? "0");
  const kept = 10n ** BigInt(take.scale) - take.units;
  if (kept <= 0n) return 0n;
  const weightOne = 10n ** BigInt(weight.scale);
  // alpha + root × w, scaled by 10^weight.scale to stay an integer.
  const stakeWeight =
    BigInt(neuron.alphaStakeNalpha || "0") * weightOne + BigInt(neuron.rootStakeRao ?? "0") * weight.units;
  if (stakeWeight <= 0n) return 0n;
  return (dividends * kept * weightOne * 10n ** BigInt(INDEX_SCALE)) / (10n ** BigInt(take.scale) * stakeWeight);
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

function decimalOf(value: string): { units: bigint; scale: number } {
  const match = DECIMAL.exec(value);
  if (match === null) throw new RangeError(`not a non-negative decimal: ${value}`);
  const fraction = match[2] ?? "";
  return { units: BigInt(`${match[1]}${fraction}`), scale: fraction.length };
}

/**
 * The index after an epoch: `previous` with each hotkey's increment added (hotkeys that earned
 * nothing keep their value; a hotkey seen for the first time starts from 0).
 */
export function addEpoch(
  previous: YieldIndex | undefined,
  epoch: number,
  increments: ReadonlyMap<string, bigint>,
): YieldIndex {
  const index = new Map(previous?.index ?? []);
  for (const [hotkey, increment] of increments) index.set(hotkey, (index.get(hotkey) ?? 0n) + increment);
  return { epoch, index };
}
