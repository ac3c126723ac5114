import { usageError } from './usage-error.js';

const MODES = ['workspace-write', 'read-only', 'off'] as const;
type Mode = (typeof MODES)[number];

/** `--sandbox MODE` and `--no-network` as the engine's sandbox options (over agent.yaml's `sandbox:`). */
export function parseSandboxFlags(flags: { sandbox?: unknown; network?: unknown }): { mode?: Mode; network?: boolean } {
  const options: { mode?: Mode; network?: boolean } = {};
  if (flags.sandbox !== undefined) {
    const mode = String(flags.sandbox);
    if (!(MODES as readonly string[]).includes(mode)) {
      throw usageError(
        `--sandbox must be one of ${MODES.join(', ')}, got "${mode}".`,
        'For example: --sandbox read-only (tools may change nothing), or --sandbox off (no sandbox).',
      );
    }
    options.mode = mode as Mode;
  }
  if (flags.network === false) options.network = false;
  return options;
}
