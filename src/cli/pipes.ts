/*
 * Closed pipes: what `seat` does when the reader of its stdout goes away (`seat run --json … | head -1`).
 * Owns: the one 'error' listener on stdout and stderr, the "stdout is closed" state and the hand-off to the
 *   verb that holds a turn (it cancels the turn and exits EXIT.brokenPipe once the turn has ended).
 * Does not own: the exit-code table (output.ts: EXIT.brokenPipe) or cancelling a turn (the verb that started it).
 * Invariant: an EPIPE never reaches the user as a stack trace; with no turn to end, the process exits at once
 *   with the code main.ts gives (EXIT.brokenPipe); a closed stderr is ignored.
 */

let stdoutClosed = false;
let installed = false;
let exitCode = 1;
let onClosed: (() => void) | undefined;

/** True once a write to stdout failed because its reader is gone. */
export function isStdoutClosed(): boolean {
  return stdoutClosed;
}

function closed(): void {
  if (stdoutClosed) return;
  stdoutClosed = true;
  if (onClosed) onClosed();
  else process.exit(exitCode);
}

/** Installs the listeners once per process (main.ts calls it before any verb runs); `code` is the exit status. */
export function watchPipes(
  code: number,
  stdout: NodeJS.WriteStream = process.stdout,
  stderr: NodeJS.WriteStream = process.stderr,
): void {
  exitCode = code;
  if (installed) return;
  installed = true;
  // EPIPE is the reader gone; ERR_STREAM_DESTROYED a write after that. Anything else on stdout is just as final.
  stdout.on("error", () => closed());
  // Nobody is left to read a message about a closed stderr: drop it and carry on.
  stderr.on("error", () => undefined);
}

/**
 * Lets the verb holding a turn react to a closed stdout (cancel, dispose, then exit EXIT.brokenPipe) instead of
 * exiting at once; returns the function that gives the default back. One holder at a time.
 */
export function onStdoutClosed(handler: () => void): () => void {
  onClosed = handler;
  if (stdoutClosed) queueMicrotask(handler);
  return () => {
    if (onClosed === handler) onClosed = undefined;
  };
}
