import type { AccountId } from "@platform/proto/common/v1/network";
import { formatU16Ratio, utf8Text } from "@platform/subtensor";
import { accountField, amountField } from "./eventFields.js";
import type { RuntimeAt, StorageItem } from "./runtimeAt.js";

/* Storage reads and value shapes shared by the snapshot readers (subnet details, metagraphs, emissions). */

/** The SubtensorModule item, or undefined when the runtime at the block lacks it. */
export const subtensorItem = (runtime: RuntimeAt, item: string): StorageItem | undefined =>
  runtime.storage("subtensorModule", item);

/**
 * Each item's values at the keys, one `.multi` per item (all in flight at once); undefined for an
 * item the runtime lacks. No read at all for no keys.
 */
export async function readColumns<const N extends string>(
  runtime: RuntimeAt,
  items: readonly N[],
  keys: readonly unknown[],
): Promise<Record<N, unknown[] | undefined>> {
  const columns = await Promise.all(items.map((item) => readColumn(subtensorItem(runtime, item), item, keys)));
  return Object.fromEntries(items.map((item, index) => [item, columns[index]])) as Record<N, unknown[] | undefined>;
}

/** The values of the first of `items` the runtime has (renamed items, newest name first); undefined when it has none. */
export async function readFirstColumn(
  runtime: RuntimeAt,
  items: readonly string[],
  keys: readonly unknown[],
): Promise<unknown[] | undefined> {
  const item = items.find((name) => subtensorItem(runtime, name) !== undefined);
  return item === undefined ? undefined : readColumn(subtensorItem(runtime, item), item, keys);
}

async function readColumn(
  storage: StorageItem | undefined,
  item: string,
  keys: readonly unknown[],
): Promise<unknown[] | undefined> {
  if (storage === undefined) return undefined;
  if (keys.length === 0) return [];
  const values = await storage.multi(keys).catch((error: unknown) => {
    throw new Error(`reading SubtensorModule.${item} at ${keys.length} keys failed`, { cause: error });
  });
  if (values.length !== keys.length)
    throw new Error(`SubtensorModule.${item}: ${values.length} values for ${keys.length} keys`);
  return values;
}

/** A plain item's value; undefined when the runtime lacks it. */
export async function readPlain(runtime: RuntimeAt, item: string): Promise<unknown> {
  const storage = subtensorItem(runtime, item);
  if (storage === undefined) return undefined;
  return storage().catch((error: unknown) => {
    throw new Error(`reading SubtensorModule.${item} failed`, { cause: error });
  });
}

/** `{ name: value }` when the value is known, `{}` otherwise: spreads into an optional proto field. */
export const optional = <K extends string, T>(name: K, value: T | undefined): { [P in K]?: T } =>
  value === undefined ? {} : ({ [name]: value } as { [P in K]: T });

/** An unsigned integer (u8..u64, bigint or number) as decimal text. */
export const u64Text = (value: unknown): string | undefined => amountField(value)?.toString();

/** An unsigned integer that fits a proto uint32 (u16, u32). */
export function smallInt(value: unknown): number | undefined {
  const amount = amountField(value);
  return amount !== undefined && amount <= 0xffff_ffffn ? Number(amount) : undefined;
}

export const flag = (value: unknown): boolean | undefined => (typeof value === "boolean" ? value : undefined);

/** A u16 ratio (score, take, cut) as a decimal in [0, 1]. */
export function u16Ratio(value: unknown): string | undefined {
  const amount = amountField(value);
  return amount !== undefined && amount <= 0xffffn ? formatU16Ratio(amount) : undefined;
}

const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

/** `Bytes` (dedot: a hex string) as UTF-8 text; invalid sequences become U+FFFD, as the EVM source decodes them. */
export function bytesText(value: unknown): string | undefined {
  return typeof value === "string" && HEX_BYTES.test(value) ? utf8Text(Buffer.from(value.slice(2), "hex")) : undefined;
}

/** The `Bytes` fields of an identity struct as text; a field the struct lacks is "" (the proto default). */
export const textFieldsOf =
  (value: object) =>
  (field: string): string =>
    bytesText((value as Record<string, unknown>)[field]) ?? "";

const ZERO_ACCOUNT = `0x${"0".repeat(64)}`;

/** An AccountId32, but for the all-zero account the runtime's account defaults stand for ("none"). */
export function storedAccount(value: unknown): AccountId | undefined {
  const account = accountField(value);
  return account === undefined || account.publicKey === ZERO_ACCOUNT ? undefined : account;
}
