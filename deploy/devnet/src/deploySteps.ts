import type { ChainRole } from "@platform/chain";
import type { Address } from "viem";
import { deployContract, type DeployContext } from "./deployContract.js";
import { multicall3Abi, multicall3Bytecode } from "./generated/index.js";

/** Every devnet contract by the key it is reported under; optional keys exist only on chains of some roles. */
export interface DevnetContracts {
  multicall3: Address;
}

export interface DeployStep {
  contract: keyof DevnetContracts;
  /** Chains that get this contract: every chain, or those holding one of the roles. */
  roles: "every" | readonly ChainRole[];
  deploy(context: DeployContext): Promise<Address>;
}

/**
 * What a devnet chain gets, in order (later steps may need earlier addresses). FullSettler (origin,
 * destination), test tokens and the precompile mocks (native) are added here as they are written.
 */
export const deploySteps: readonly DeployStep[] = [
  {
    // On every chain: the ingestor batches its reads through it, and viem's multicall needs it.
    contract: "multicall3",
    roles: "every",
    deploy: (context) => deployContract(context, { abi: multicall3Abi, bytecode: multicall3Bytecode }),
  },
];
