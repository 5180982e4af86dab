import { encodeBytes, encodeU16, encodeU64, subtensorStorageKeys as keys } from "@platform/subtensor";
import { bytesToHex, concatHex, type Hex } from "viem";
import { devnetNetworkStorage, devnetSubnets, devnetValidators, type ChainIdentity, type SubnetIdentity } from "../seed.js";

/*
 * SCALE values at the raw keys `@platform/subtensor` computes (the same builders the ingestor reads
 * with): little-endian integers, `Vec<u8>` text, and structs as their fields in declaration order.
 */
const scaleU16 = (value: number): Hex => bytesToHex(encodeU16(value));
const scaleU64 = (value: bigint): Hex => bytesToHex(encodeU64(value));
const scaleText = (text: string): Hex => bytesToHex(encodeBytes(text));
const scaleTextStruct = (fields: readonly string[]): Hex => concatHex(fields.map(scaleText));

/** One raw storage value: the SCALE bytes at a raw key. */
export interface StorageEntry {
  what: string;
  key: Hex;
  value: Hex;
}

/** `SubnetIdentityV3` in declaration order. */
export function encodeSubnetIdentity(identity: SubnetIdentity): Hex {
  return scaleTextStruct([
    identity.subnet_name,
    identity.github_repo,
    identity.subnet_contact,
    identity.subnet_url,
    identity.discord,
    identity.description,
    identity.logo_url,
    identity.additional,
  ]);
}

/** `ChainIdentityV2` in declaration order. */
export function encodeChainIdentity(identity: ChainIdentity): Hex {
  return scaleTextStruct([identity.name, identity.url, identity.github_repo, identity.image, identity.discord, identity.description, identity.additional]);
}

/** `TotalIssuance` as the deploy and the simulator write it. */
export function totalIssuanceEntry(rao: bigint): StorageEntry {
  return { what: "TotalIssuance", key: keys.totalIssuance(), value: scaleU64(rao) };
}

/**
 * Everything the deploy writes, in groups of one transaction each: the network totals, then per
 * subnet its tempo, symbol, owner keys and identity, then per validator its take and identity.
 * Miners get no take or identity: nothing is stored for them, as for most keys on the chain.
 */
export function devnetStorageEntries(totalIssuanceRao: bigint): StorageEntry[][] {
  const network = [
    totalIssuanceEntry(totalIssuanceRao),
    { what: "BlockEmission", key: keys.blockEmission(), value: scaleU64(devnetNetworkStorage.blockEmissionRao) },
    { what: "SubnetLimit", key: keys.subnetLimit(), value: scaleU16(devnetNetworkStorage.subnetLimit) },
  ];
  const subnets = devnetSubnets.map((subnet) => {
    const entries: StorageEntry[] = [
      { what: `Tempo[${subnet.netuid}]`, key: keys.tempo(subnet.netuid), value: scaleU16(subnet.tempo) },
      { what: `TokenSymbol[${subnet.netuid}]`, key: keys.tokenSymbol(subnet.netuid), value: scaleText(subnet.symbol) },
    ];
    if (subnet.owner !== undefined) {
      const owner = devnetValidators[subnet.owner]!;
      entries.push(
        { what: `SubnetOwner[${subnet.netuid}]`, key: keys.subnetOwner(subnet.netuid), value: owner.coldkey },
        { what: `SubnetOwnerHotkey[${subnet.netuid}]`, key: keys.subnetOwnerHotkey(subnet.netuid), value: owner.hotkey },
      );
    }
    if (subnet.identity !== undefined) {
      entries.push({ what: `SubnetIdentitiesV3[${subnet.netuid}]`, key: keys.subnetIdentityV3(subnet.netuid), value: encodeSubnetIdentity(subnet.identity) });
    }
    return entries;
  });
  const validators = devnetValidators.map((validator, index) => [
    { what: `Delegates[validator ${index}]`, key: keys.delegateTake(validator.hotkey), value: scaleU16(validator.take) },
    { what: `IdentitiesV2[validator ${index}]`, key: keys.identityV2(validator.coldkey), value: encodeChainIdentity(validator.identity) },
  ]);
  return [network, ...subnets, ...validators];
}
