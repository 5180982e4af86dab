/** Progress lines for a person watching the stack come up: elapsed time, a mark, what happened. */
export interface Progress {
  step(message: string): void;
  done(message: string): void;
  warn(message: string): void;
}

export function consoleProgress(write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Progress {
  const started = Date.now();
  const stamp = () => `[${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s]`;
  return {
    step: (message) => write(`${stamp()} … ${message}`),
    done: (message) => write(`${stamp()} ✓ ${message}`),
    warn: (message) => write(`${stamp()} ! ${message}`),
  };
}

export const silentProgress: Progress = { step: () => undefined, done: () => undefined, warn: () => undefined };
