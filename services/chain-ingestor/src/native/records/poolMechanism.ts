import { PoolMechanism } from "@platform/proto/common/v1/network";

/** `SubnetMechanism`: 0 stable, 1 dynamic; any other value is one this code does not know. */
export function poolMechanism(raw: number): PoolMechanism {
  if (raw === 0) return PoolMechanism.POOL_MECHANISM_STABLE;
  if (raw === 1) return PoolMechanism.POOL_MECHANISM_DYNAMIC;
  return PoolMechanism.POOL_MECHANISM_UNSPECIFIED;
}
