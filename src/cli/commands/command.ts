/*
 * Command shape: what every `seat` verb provides.
 */

/** One verb of the CLI. */
export interface Command {
  name: string;
  help: string;
  /** Runs the verb and resolves its exit code. */
  run(argv: string[]): Promise<number>;
}
