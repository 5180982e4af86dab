/** grpc-timeout: at most 8 digits and a unit. */
export function timeoutHeader(ms: number): string {
  const whole = Math.max(1, Math.ceil(ms));
  return whole < 100_000_000 ? `${whole}m` : `${Math.ceil(whole / 1000)}S`;
}
