/** A view function that keeps its literal types, so viem infers names, arguments and results. */
function view<
  const N extends string,
  const I extends readonly { name: string; type: string }[],
  const O extends readonly { name: string; type: string }[],
>(name: N, inputs: I, outputs: O) {
  return { type: "function", name, stateMutability: "view", inputs, outputs } as const;
}

/** One unnamed result. */
function returns<const T extends string>(type: T) {
  return [{ name: "", type }] as const;
}

const roundData = [
  { name: "roundId", type: "uint80" },
  { name: "answer", type: "int256" },
  { name: "startedAt", type: "uint256" },
  { name: "updatedAt", type: "uint256" },
  { name: "answeredInRound", type: "uint80" },
] as const;

/**
 * Chainlink `AggregatorV2V3Interface`, the part a price reader needs: the V3 round reads plus the V2
 * events that announce each new answer. The devnet's TAO/USD feed answers with 8 decimals, like
 * Chainlink's USD feeds; read `decimals()` rather than assume it.
 */
export const priceFeedAbi = [
  view("decimals", [], returns("uint8")),
  view("description", [], returns("string")),
  view("version", [], returns("uint256")),
  view("latestRoundData", [], roundData),
  view("getRoundData", [{ name: "_roundId", type: "uint80" }], roundData),
  view("latestAnswer", [], returns("int256")),
  view("latestRound", [], returns("uint256")),
  view("latestTimestamp", [], returns("uint256")),
  {
    type: "event",
    name: "AnswerUpdated",
    inputs: [
      { name: "current", type: "int256", indexed: true },
      { name: "roundId", type: "uint256", indexed: true },
      { name: "updatedAt", type: "uint256", indexed: false },
    ],
    anonymous: false,
  },
  {
    type: "event",
    name: "NewRound",
    inputs: [
      { name: "roundId", type: "uint256", indexed: true },
      { name: "startedBy", type: "address", indexed: true },
      { name: "startedAt", type: "uint256", indexed: false },
    ],
    anonymous: false,
  },
] as const;

/** The devnet feed's answer scale; real Chainlink USD feeds use the same. */
export const PRICE_FEED_DECIMALS = 8;
