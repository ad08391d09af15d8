/*
 * Notify config front door: what a person away from the terminal may be told and where — the event vocabulary and
 *   the targets of a config file's `notify` section, checked before anything runs. No delivery: that is notify/.
 * Owns: the list of names other rooms may import from notify-config/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../notify-config/index.js", never a file inside notify-config/.
 */
export {
  NOTIFY_EVENTS,
  createNotifyEvent,
  isNotifyEventName,
  type NotifyApproval,
  type NotifyEvent,
  type NotifyEventName,
  type NotifySubject,
} from "./events.js";
export {
  NOTIFY_TARGET_TYPES,
  chooseTargets,
  parseNotifyConfig,
  type NotifyConfig,
  type NotifyTarget,
} from "./config.js";
