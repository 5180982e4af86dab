import { type NativeChain, nativeStorage } from "@platform/devnet";

type Api = NativeChain["api"];

/** A dynamic subnet as the simulator acts on it. */
export interface NativeSubnetState {
  netuid: number;
  /** Registered hotkeys (uid order): what stake goes to. */
  hotkeys: string[];
  /** Rao a `burnedRegister` costs now. */
  burn: bigint;
  /** Whether another registration fits this adjustment interval (3 × the target, the runtime's cap). */
  canRegister: boolean;
}

/** Alpha a simulator coldkey holds with a hotkey on a subnet. */
export interface NativePosition {
  coldkey: string;
  hotkey: string;
  netuid: number;
  alpha: bigint;
}

/** What one tick plans from, read at the head when the tick starts. */
export interface NativeChainState {
  /** Free balance of each simulator coldkey (SS58 → rao). */
  free: Map<string, bigint>;
  subnets: NativeSubnetState[];
  positions: NativePosition[];
}

/** Mechanism 1: dynamic, the subnets with alpha pools (root is mechanism 0). */
const DYNAMIC = 1;

export async function readNativeState(api: Api, coldkeys: readonly string[]): Promise<NativeChainState> {
  const [free, subnets, positions] = await Promise.all([
    readFree(api, coldkeys),
    readSubnets(api),
    readPositions(api, coldkeys),
  ]);
  return { free, subnets, positions };
}

async function readFree(api: Api, coldkeys: readonly string[]): Promise<Map<string, bigint>> {
  const accounts = await nativeStorage(api, "system", "account").multi([...coldkeys]);
  return new Map(
    coldkeys.map((coldkey, index) => [
      coldkey,
      BigInt((accounts[index]!.toJSON() as { data: { free: number | string } }).data.free),
    ]),
  );
}

async function readSubnets(api: Api): Promise<NativeSubnetState[]> {
  const added = await nativeStorage(api, "subtensorModule", "networksAdded").entries();
  const netuids = added
    .filter(([, exists]) => exists.toJSON() === true)
    .map(([key]) => Number(key.args[0]!.toString()));
  const subnets = await Promise.all(netuids.map((netuid) => readSubnet(api, netuid)));
  return subnets.filter((subnet): subnet is NativeSubnetState => subnet !== undefined);
}

async function readSubnet(api: Api, netuid: number): Promise<NativeSubnetState | undefined> {
  const read = (item: string) =>
    nativeStorage(api, "subtensorModule", item)(netuid).then((value) => BigInt(value.toString()));
  if ((await read("subnetMechanism")) !== BigInt(DYNAMIC)) return undefined;
  const [keys, burn, registered, target] = await Promise.all([
    nativeStorage(api, "subtensorModule", "keys").entries(netuid),
    read("burn"),
    read("registrationsThisInterval"),
    read("targetRegistrationsPerInterval"),
  ]);
  const hotkeys = keys
    .map(([key, hotkey]) => [Number(key.args[1]!.toString()), hotkey.toString()] as const)
    .sort(([a], [b]) => a - b);
  return { netuid, hotkeys: hotkeys.map(([, hotkey]) => hotkey), burn, canRegister: registered < 3n * target };
}

/** A dev chain's Alpha map is small, so the whole map is read and filtered to the simulator's coldkeys. */
async function readPositions(api: Api, coldkeys: readonly string[]): Promise<NativePosition[]> {
  const ours = new Set(coldkeys);
  const entries = await nativeStorage(api, "subtensorModule", "alpha").entries();
  return entries
    .map(([key, value]) => {
      const [hotkey, coldkey, netuid] = key.args.map((arg) => arg.toString());
      return { coldkey: coldkey!, hotkey: hotkey!, netuid: Number(netuid), alpha: BigInt(value.toString()) };
    })
    .filter((position) => ours.has(position.coldkey) && position.alpha > 0n);
}
