import { pad, type Address, type Hex } from "viem";
import {
  alphaPrecompileMockDeployedBytecode,
  metagraphPrecompileMockDeployedBytecode,
  stakingV2PrecompileMockDeployedBytecode,
  storageQueryMockDeployedBytecode,
  subnetPrecompileMockDeployedBytecode,
} from "../generated/index.js";
import type { ChainStepContext } from "../deploySteps.js";

/**
 * The mocks and the real precompile addresses they answer at. The addresses repeat
 * `precompileAddresses` of `@platform/subtensor` (which this package does not depend on); the
 * simulator's tests check that both lists agree.
 */
export const precompileMocks = [
  { name: "metagraph", address: "0x0000000000000000000000000000000000000802", code: metagraphPrecompileMockDeployedBytecode },
  { name: "subnet", address: "0x0000000000000000000000000000000000000803", code: subnetPrecompileMockDeployedBytecode },
  { name: "stakingV2", address: "0x0000000000000000000000000000000000000805", code: stakingV2PrecompileMockDeployedBytecode },
  { name: "storageQuery", address: "0x0000000000000000000000000000000000000807", code: storageQueryMockDeployedBytecode },
  { name: "alpha", address: "0x0000000000000000000000000000000000000808", code: alphaPrecompileMockDeployedBytecode },
] as const satisfies readonly { name: string; address: Address; code: Hex }[];

/** Every mock keeps the `SubtensorState` address in storage slot 0 (its only state variable). */
export const STATE_POINTER_SLOT = 0;

/**
 * Places each mock's runtime code at its precompile address. `anvil_setCode` runs no constructor, so
 * the pointer to the shared state is written straight into slot 0 with `anvil_setStorageAt`.
 */
export async function installPrecompileMocks(context: ChainStepContext, state: Address): Promise<void> {
  for (const mock of precompileMocks) {
    await context.testClient.setCode({ address: mock.address, bytecode: mock.code });
    await context.testClient.setStorageAt({ address: mock.address, index: STATE_POINTER_SLOT, value: pad(state) });
  }
}
