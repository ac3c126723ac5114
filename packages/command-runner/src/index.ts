export { runCommand } from './run-command.js';
export type { RunCommandOptions, CommandResult } from './run-command.js';
export { BoundedCapture, formatCapturedOutput } from './bounded-capture.js';
export type { CapturedOutput } from './bounded-capture.js';
export { processStartTicks, stopProcessGroupIfSame } from './process-group.js';
export { CommandLauncher } from './launcher.js';
export type { LaunchRequest, LaunchOutcome, LaunchedCommand } from './launcher.js';
