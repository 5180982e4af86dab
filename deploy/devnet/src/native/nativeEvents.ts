import type { ApiPromise } from "@polkadot/api";

/** The parts of a SCALE value this code reads (polkadot-js has no typings for Subtensor's pallets). */
export interface NativeValue {
  toString(): string;
  toJSON(): unknown;
  toHuman(): unknown;
}

type ModuleError = Parameters<ApiPromise["registry"]["findMetaError"]>[0];

/** `sp_runtime::DispatchError` as decoded by the metadata. */
interface DispatchErrorValue extends NativeValue {
  isModule: boolean;
  asModule: ModuleError;
  type: string;
}

/** One `System.Events` record. */
export interface NativeEventRecord {
  phase: { isApplyExtrinsic: boolean; asApplyExtrinsic: { toNumber(): number } };
  event: { section: string; method: string; data: NativeValue[] };
}

/** The events of a block, in order. */
export async function blockEvents(api: ApiPromise, blockHash: string): Promise<NativeEventRecord[]> {
  const events = await (await api.at(blockHash)).query.system!.events!();
  return [...(events as unknown as Iterable<NativeEventRecord>)];
}

/** The events an extrinsic emitted, by its index in the block. */
export function eventsOfExtrinsic(records: readonly NativeEventRecord[], index: number): NativeEventRecord["event"][] {
  return records
    .filter((record) => record.phase.isApplyExtrinsic && record.phase.asApplyExtrinsic.toNumber() === index)
    .map((record) => record.event);
}

/** `section.Method`, the way events are named in errors and tests. */
export function eventName(event: { section: string; method: string }): string {
  return `${event.section}.${event.method}`;
}

/** The events of one name, e.g. `subtensorModule.StakeAdded`. */
export function findEvents(events: readonly NativeEventRecord["event"][], name: string): NativeEventRecord["event"][] {
  return events.filter((event) => eventName(event) === name);
}

/**
 * Why an extrinsic failed, or undefined when it succeeded. A `sudo` call succeeds as an extrinsic even
 * when the call it wraps fails, so `Sudo.Sudid`'s result counts too.
 */
export function extrinsicFailure(api: ApiPromise, events: readonly NativeEventRecord["event"][]): string | undefined {
  const failed = findEvents(events, "system.ExtrinsicFailed")[0];
  if (failed !== undefined) return describeDispatchError(api, failed.data[0] as DispatchErrorValue);
  for (const sudid of findEvents(events, "sudo.Sudid")) {
    const result = sudid.data[0] as unknown as { isErr: boolean; asErr: DispatchErrorValue };
    if (result.isErr) return `sudo: ${describeDispatchError(api, result.asErr)}`;
  }
  if (findEvents(events, "system.ExtrinsicSuccess").length === 0) return "no System.ExtrinsicSuccess event";
  return undefined;
}

function describeDispatchError(api: ApiPromise, error: DispatchErrorValue | undefined): string {
  if (error === undefined) return "unknown dispatch error";
  if (!error.isModule) return error.type;
  const meta = api.registry.findMetaError(error.asModule);
  return `${meta.section}.${meta.name}`;
}
