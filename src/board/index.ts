/*
 * Board front door: the loopback web page of every run and approval, and the approval links' pages.
 * Owns: the list of names other rooms may import from board/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../board/index.js", never a file inside board/; it loads express and bull-board,
 *   so the CLI loads it on use (`seat board`).
 */
export { BOARD_TOKEN_ENV, boardBase, isLoopback, startBoard } from "./server.js";
export type { Board, BoardOptions } from "./server.js";
