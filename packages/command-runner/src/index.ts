export { runCommand } from './run-command.js';
export type { RunCommandOptions, CommandResult } from './run-command.js';
export { BoundedCapture, formatCapturedOutput } from './bounded-capture.js';
export type { CapturedOutput } from './bounded-capture.js';
export { stopProcessGroupIfSame } from './process-group.js';
export { CommandLauncher, launcherProgramPath } from './launcher.js';
export type { LaunchRequest, LaunchOutcome, LaunchedCommand } from './launcher.js';
