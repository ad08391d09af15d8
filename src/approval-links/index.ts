/*
 * Approval links front door: the signed Approve / Deny links a notification carries, and the seat home's side of
 *   them (the link key, used links, the board's address). Answering one is the board's (board/server.ts).
 * Owns: the list of names other rooms may import from approval-links/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../approval-links/index.js", never a file inside approval-links/.
 */
export { linkPath, linksBase, signLink, verifyLink } from "./link-sign.js";
export type { ApprovalLink, LinkDecision } from "./link-sign.js";
export {
  approvalLinks,
  boardDir,
  claimLink,
  clearBoardAddress,
  ensureLinkKey,
  findLinkKey,
  isLinkUsed,
  pruneUsedLinks,
  readBoardAddress,
  writeBoardAddress,
} from "./links.js";
export type { BoardAddress } from "./links.js";
