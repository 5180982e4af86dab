import { describe, expect, it } from "vitest";
import { parseFundArgs } from "./fundArgs.js";

const EVM = "0x52908400098527886E0F7030069857D2E4169EE7";
const ALICE = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";

const request = (args: string[]) => {
  const parsed = parseFundArgs(args);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.request;
};
const error = (args: string[]) => {
  const parsed = parseFundArgs(args);
  if (parsed.ok) throw new Error(`accepted ${args.join(" ")}`);
  return parsed.error;
};

describe("deploy/local/stack fund: its arguments", () => {
  it("gives a bare EVM address 1,000 USDC and 10 ETH on every anvil chain, and an SS58 address 100 TAO", () => {
    expect(request([EVM])).toMatchObject({ address: { kind: "evm", address: EVM }, usdc: "1000", eth: "10" });
    expect(request([EVM]).tao).toBeUndefined();
    expect(request([EVM]).chain).toBeUndefined();
    const native = request([ALICE]);
    expect(native).toMatchObject({ address: { kind: "native", native: { ss58: ALICE } }, tao: "100" });
    expect(native.usdc ?? native.eth).toBeUndefined();
  });

  it("takes only what is asked for once an amount is given, in either option form", () => {
    const usdcOnly = request([EVM, "--usdc", "2.5"]);
    expect([usdcOnly.usdc, usdcOnly.eth, usdcOnly.tao]).toEqual(["2.5", undefined, undefined]);
    expect(request(["--eth=0.25", EVM, "--tao", "3", "--chain", "origin"])).toMatchObject({
      eth: "0.25",
      tao: "3",
      chain: "origin",
    });
  });

  it("maps TAO for an EVM address to the account Subtensor maps the H160 to", () => {
    const parsed = request([EVM, "--tao", "1"]);
    expect(parsed.address.native.evmH160).toBe(EVM);
    expect(parsed.address.native.ss58).toMatch(/^5[1-9A-HJ-NP-Za-km-z]{47}$/);
    expect(parsed.address.native.ss58).not.toBe(ALICE);
  });

  it("refuses a malformed address, naming what it takes", () => {
    expect(error([])).toBe("the address to fund is missing");
    expect(error(["0x1234"])).toMatch(/0x1234: not an address: give an EVM address .* or a Subtensor SS58 address/);
    expect(error([`${ALICE.slice(0, -1)}Z`])).toMatch(/not an address/);
    // A mixed-case address is a checksum: a wrong one is a typo.
    expect(error(["0x52908400098527886E0F7030069857D2E4169Ee7"])).toMatch(/checksum does not match/);
    expect(error([EVM, ALICE])).toMatch(/one address only/);
  });

  it("refuses amounts that are not positive decimals of whole units with the unit's decimals", () => {
    expect(error([EVM, "--usdc", "-5"])).toMatch(/--usdc -5: not a decimal number/);
    expect(error([EVM, "--usdc", "1e3"])).toMatch(/not a decimal number/);
    expect(error([EVM, "--usdc", "0.0000001"])).toBe("--usdc 0.0000001: at most 6 decimals");
    expect(error([EVM, "--tao", "0.0000000001"])).toBe("--tao 0.0000000001: at most 9 decimals");
    expect(error([EVM, "--eth", "0.000"])).toBe("--eth 0.000: must be more than 0");
    expect(error([EVM, "--eth", "2000000000"])).toMatch(/at most 1,000,000,000/);
    expect(error([EVM, "--eth"])).toBe("--eth needs a value");
    expect(error([EVM, "--eth", "1", "--eth", "2"])).toBe("--eth is given twice");
    expect(error([EVM, "--dai", "1"])).toBe("unknown option --dai");
  });

  it("refuses ETH, USDC or a chain for an SS58 address, which has no account on the anvil chains", () => {
    expect(error([ALICE, "--usdc", "5"])).toMatch(/is a Subtensor account.*--usdc need an EVM \(0x\) address/);
    expect(error([ALICE, "--chain", "origin"])).toMatch(/--chain need an EVM/);
  });
});
