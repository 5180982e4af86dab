/**
 * The base of every error this package throws on purpose (a problem answer, a quote the calls
 * refuse, unusable deployment data), so a caller can tell them from network failures and aborts
 * with one `instanceof`, then switch on `code`.
 */
export abstract class ClientError extends Error {
  abstract readonly code: string;
}
