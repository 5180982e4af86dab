import { describe, expect, it } from "vitest";
import {
  EMISSION_SORTS,
  NEURON_SORTS,
  POOL_SORTS,
  type SortOptions,
  SUBNET_SORTS,
  sortNameOf,
  sortValueOf,
  VALIDATOR_SORTS,
} from "./sorts.js";

describe("sort options", () => {
  const tables: Record<string, SortOptions<string, number>> = {
    POOL_SORTS,
    EMISSION_SORTS,
    SUBNET_SORTS,
    VALIDATOR_SORTS,
    NEURON_SORTS,
  };

  it.each(Object.entries(tables))("%s: each name goes to its proto value and back", (_name, options) => {
    for (const [name, value] of Object.entries(options.values)) {
      expect(sortValueOf(options, name)).toBe(value);
      expect(sortNameOf(options, value)).toBe(name);
    }
    expect(new Set(Object.values(options.values)).size).toBe(Object.keys(options.values).length);
  });

  it.each(Object.entries(tables))(
    "%s: UNSPECIFIED stands for the default, an unknown value for none",
    (_name, options) => {
      expect(sortValueOf(options, undefined)).toBe(options.unspecified);
      expect(sortNameOf(options, options.unspecified)).toBe(options.defaultName);
      expect(options.defaultName in options.values).toBe(true);
      expect(sortNameOf(options, 999)).toBeUndefined();
      expect(sortNameOf(options, -1)).toBeUndefined();
    },
  );
});
