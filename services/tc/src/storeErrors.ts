import { fromStore } from "@platform/service";

/** A Redis operation of tc's: a failure answers UNAVAILABLE, retryable (libs/service fromStore). */
export const fromTcStore = <T>(action: () => Promise<T>): Promise<T> =>
  fromStore("the T&C store is unavailable; try again shortly", action);
