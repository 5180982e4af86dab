/**
 * What a kept answer was read from: a whole projection, or one account of the accounts projection
 * (its lower-case 0x public key, as `readmodel.changed.accounts` names it).
 */
export type Dependency = "market" | "subnets" | "accounts" | { account: string };

/**
 * When each read model last changed, as the projections' change signals tell, on a logical clock
 * that ticks once per change. An answer read by a call that started at tick `t` is current while
 * nothing it depends on changed after `t`: `lastChange(dependencies) <= t`. A change that arrives
 * while a call is in flight ticks past the call's start, so its answer is never kept as current.
 *
 * Accounts are remembered one by one up to `maxAccounts`; past that the clock forgets them all
 * at once and counts every account as changed then (a rare, safe loss: answers are read again).
 */
export class ChangeClock {
  #tick = 0;
  readonly #projections = new Map<string, number>();
  readonly #accounts = new Map<string, number>();
  /** Every account changed at this tick or before (the remembered accounts were forgotten then). */
  #accountsForgottenAt = 0;
  /** Everything changed at this tick or before (the signals were lost then). */
  #everythingAt = 0;

  constructor(private readonly maxAccounts = 100_000) {}

  /** The current tick: a call that starts now is current as long as `lastChange` stays at or below it. */
  now(): number {
    return this.#tick;
  }

  /** A projection committed: everything read from it may have changed. */
  projectionChanged(projection: string): void {
    this.#tick += 1;
    this.#projections.set(projection, this.#tick);
  }

  /** The accounts projection committed changes of these accounts (public keys, any case). */
  accountsChanged(publicKeys: readonly string[]): void {
    this.#tick += 1;
    if (this.#accounts.size + publicKeys.length > this.maxAccounts) {
      this.#accounts.clear();
      this.#accountsForgottenAt = this.#tick;
    }
    for (const key of publicKeys) this.#accounts.set(key.toLowerCase(), this.#tick);
  }

  /** Nothing can be proven unchanged from here on: whatever was read before now is stale. */
  everythingChanged(): void {
    this.#tick += 1;
    this.#everythingAt = this.#tick;
  }

  /** The newest tick at which any of `dependencies` changed. */
  lastChange(dependencies: readonly Dependency[]): number {
    let last = this.#everythingAt;
    for (const dependency of dependencies) {
      if (typeof dependency === "string") {
        last = Math.max(last, this.#projections.get(dependency) ?? 0);
      } else {
        const account = this.#accounts.get(dependency.account) ?? this.#accountsForgottenAt;
        last = Math.max(last, this.#projections.get("accounts") ?? 0, account);
      }
    }
    return last;
  }
}
