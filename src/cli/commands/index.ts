/*
 * The verb table of the `seat` CLI.
 */
import type { Command } from "./command.js";
import { demoCommand } from "./demo.js";
import { modelsCommand } from "./models.js";
import { probeCommand } from "./probe.js";
import { runCommand } from "./run.js";
import { hireCommand } from "./hire.js";
import { sendCommand } from "./send.js";
import { statusCommand } from "./status.js";
import { releaseCommand } from "./release.js";
import { attachCommand } from "./attach.js";
import { sessionsCommand } from "./sessions.js";
import { cancelCommand } from "./cancel.js";
import { agentsCommand } from "./agents.js";
import { workerCommand } from "./worker.js";
import { submitCommand } from "./submit.js";
import { jobsCommand } from "./jobs.js";

/** Every verb, in help order. */
export const COMMANDS: readonly Command[] = [runCommand, sessionsCommand, cancelCommand, probeCommand, agentsCommand, modelsCommand, demoCommand, hireCommand, sendCommand, statusCommand, releaseCommand, attachCommand, workerCommand, submitCommand, jobsCommand];
