/** A subnet's pool as the runtime's storage holds it at a block. */
export interface NativePool {
  netuid: number;
  /** `SubnetMechanism`: 0 stable, 1 dynamic. */
  mechanism: number;
  /** `SubnetTAO`. */
  taoInRao: bigint;
  /** `SubnetAlphaIn`. */
  alphaInNalpha: bigint;
  /** `SubnetAlphaOut`. */
  alphaOutNalpha: bigint;
}
