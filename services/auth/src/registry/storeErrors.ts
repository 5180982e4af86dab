import { fromStore } from "@platform/service";

/** A Redis operation of auth's: a failure answers UNAVAILABLE, retryable (libs/service fromStore). */
export const fromRegistry = <T>(action: () => Promise<T>): Promise<T> =>
  fromStore("the key registry is unavailable; try again shortly", action);
