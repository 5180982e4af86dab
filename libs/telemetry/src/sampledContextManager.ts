import { AsyncLocalStorage } from "node:async_hooks";
import { type Context, context as contextApi, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";

/**
 * Keeps a context across awaits only when it holds a sampled (recording) span.
 *
 * Why not the stock AsyncLocalStorageContextManager: on Node 20 an enabled AsyncLocalStorage runs
 * a hook on every promise the process makes: CPU on every await of every request, so that tracing
 * at 1 % cost a large share of the throughput (`bench:data` with BENCH_TRACING=1 measures it), for
 * 99 requests in 100 whose spans are dropped anyway. So here:
 * - a sampled context runs in an AsyncLocalStorage, which is switched off again whenever no
 *   sampled context is held (`holdContext`, or the promise a `with` body returned, still pending);
 * - any other context is active for the synchronous part of its `with` only. After its first
 *   await the work sees no span, so it makes no child spans and sends no `traceparent`: a trace
 *   is decided at its edge (an HTTP request, an ingested block) and the hops below a sampled-out
 *   edge stay untraced (callers treat "no parent" as "not traced", never as a new root).
 * Node 24's AsyncLocalStorage (async context frames) costs nothing per await, so there the stock
 * manager would do; this one stays correct there too.
 */
export class SampledContextManager extends AsyncLocalStorageContextManager {
  private readonly sampled = new AsyncLocalStorage<Context>();
  private synchronous: Context | undefined;
  private holds = 0;

  override active(): Context {
    return this.sampled.getStore() ?? this.synchronous ?? ROOT_CONTEXT;
  }

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const body = thisArg == null ? fn : (fn.bind(thisArg) as F);
    // Inside a sampled context the storage is on anyway: nest in it, whatever the context.
    if (!isSampled(context) && this.sampled.getStore() === undefined) {
      const previous = this.synchronous;
      this.synchronous = context;
      try {
        return body(...args);
      } finally {
        this.synchronous = previous;
      }
    }
    const release = this.hold();
    let result: ReturnType<F>;
    try {
      result = this.sampled.run(context, body, ...args);
    } catch (error) {
      release();
      throw error;
    }
    if (isThenable(result)) result.then(release, release);
    else release();
    return result;
  }

  /** True when no sampled context can be active: none is held, so the storage is off. */
  idle(): boolean {
    return this.holds === 0;
  }

  /** Keeps the storage on until the returned function is called (work that outlives a `with` body). */
  hold(): () => void {
    this.holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      // Nothing sampled left in flight: stop paying the per-promise hook.
      if (this.holds === 0) this.sampled.disable();
    };
  }

  override attach(context: Context): { dispose(): void } {
    const previous = this.active();
    const release = isSampled(context) ? this.hold() : undefined;
    if (release === undefined && this.sampled.getStore() === undefined) {
      this.synchronous = context;
      return {
        dispose: () => {
          this.synchronous = previous;
        },
      };
    }
    this.sampled.enterWith(context);
    return {
      dispose: () => {
        this.sampled.enterWith(previous);
        release?.();
      },
    };
  }

  override disable(): this {
    this.sampled.disable();
    this.synchronous = undefined;
    this.holds = 0;
    return super.disable();
  }
}

/** True when the context's span is recording (sampled in this process). */
function isSampled(context: Context): boolean {
  return trace.getSpan(context)?.isRecording() === true;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === "function";
}

let manager: SampledContextManager | undefined;

/** Set by startTracing: the manager `holdContext` talks to. */
export function useSampledContextManager(active: SampledContextManager | undefined): void {
  manager = active;
}

/**
 * Keeps `context` (when sampled) across awaits until the returned function is called: for work a
 * `with` body starts but does not return a promise for (an HTTP listener, a gRPC handler that
 * answers through a callback). A no-op for a context sampled out, or while tracing is off.
 */
export function holdContext(context: Context = contextApi.active()): () => void {
  if (manager === undefined || !isSampled(context)) return noop;
  return manager.hold();
}

const noop = () => undefined;

/**
 * True when no sampled span can be active in this process now (startTracing's manager holds
 * nothing sampled): a leaf's span wrapper (a Redis command) can skip looking up the active context.
 * False means only that one may be (or another manager is in charge): look it up.
 */
export function noSampledContext(): boolean {
  return manager !== undefined && manager.idle();
}
