/*
 * Prompt input: the text of a prompt or brief given as an argument, a file (`-f FILE`) or stdin (`-f -`).
 * Owns: reading the file or stdin, and refusing both sources at once or neither (CLI_USAGE).
 * Does not own: what counts as a valid brief (seat/) or prompt (acp/).
 * Invariant: a file or stdin is read whole, as UTF-8, with no size cap here (a 5 MB prompt works; argv could
 *   not carry one); an unreadable file is CLI_USAGE naming it.
 */
import { readFile } from "node:fs/promises";
import { SeatError } from "../errors.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Reads `file` whole, or stdin when it is "-". */
export async function readTextInput(verb: string, file: string, what = "prompt"): Promise<string> {
  if (file === "-") return readStdin();
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new SeatError(
      "CLI_USAGE",
      `seat ${verb}: cannot read the ${what} file ${file} (${(error as NodeJS.ErrnoException).code ?? "error"}).`,
      { context: { file } },
    );
  }
}

/** The prompt of `seat run` / `seat submit`: the joined positionals, or `-f FILE|-`; never both, never neither. */
export async function promptFrom(
  verb: string,
  file: string | undefined,
  positionals: readonly string[],
  example: string,
): Promise<string> {
  const inline = positionals.join(" ");
  if (file !== undefined && inline.trim() !== "")
    throw new SeatError("CLI_USAGE", `seat ${verb}: give the prompt either as an argument or with -f, not both.`);
  const prompt = file !== undefined ? await readTextInput(verb, file) : inline;
  if (prompt.trim() === "") {
    throw new SeatError(
      "CLI_USAGE",
      file !== undefined
        ? `seat ${verb}: the prompt from ${file === "-" ? "stdin" : file} is empty.`
        : `seat ${verb}: give the prompt as an argument or with -f FILE|-, e.g. ${example}.`,
    );
  }
  return file !== undefined ? prompt : prompt.trim();
}
