import { parseAbi } from "viem";

/**
 * ERC-6093's custom errors of an ERC-20 token (OpenZeppelin's since v5): what a token's revert
 * inside the settler's `TokenTransferFailed(token, reason)` can be named as. The devnet's
 * TestToken raises exactly these (deploy/devnet checks it against its compiled ABI).
 */
export const erc20ErrorsAbi = parseAbi([
  "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
  "error ERC20InvalidSender(address sender)",
  "error ERC20InvalidReceiver(address receiver)",
  "error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
  "error ERC20InvalidApprover(address approver)",
  "error ERC20InvalidSpender(address spender)",
]);
