import type * as Engine from '@delta/engine';
import type { EngineStartEvent } from '@delta/journal';

/** The engine's fingerprint functions, passed in so that this module does not load the engine. */
export type FingerprintTools = Pick<typeof Engine, 'compareFingerprints' | 'describeFingerprintChanges' | 'shortFingerprint'>;
type Describe = Pick<FingerprintTools, 'describeFingerprintChanges'>;

/** `delta diff`'s line about the two runs' agents. */
export function diffAgentLine(changes: Engine.FingerprintChanges | undefined, tools: Describe): string {
  if (changes === undefined) return "agents: not compared (a run's engine did not record its agent's version)";
  if (changes.same) return 'agents: the same version';
  return `agents differ: ${tools.describeFingerprintChanges(changes)} (A's agent -> B's)`;
}

const SETTING_NAMES: Record<string, string> = { 'llm.model': 'model', base_url: 'endpoint' };

/**
 * `delta diff`'s line about what the two runs were started with besides the agent's files: the model, the
 * endpoint, the `llm:` parameters and prices, the iteration budget.
 */
export function diffSettingsLine(changes: readonly Engine.SettingChange[] | undefined): string {
  if (changes === undefined) return "settings: not compared (a run's engine did not record its configuration)";
  if (changes.length === 0) return 'settings: the same model, endpoint and parameters';
  const show = (value: string | null) => (value === null ? '(none)' : value);
  const parts = changes.map(({ field, a, b }) => `${SETTING_NAMES[field] ?? field} ${show(a)} (A) -> ${show(b)} (B)`);
  return `settings differ: ${parts.join('; ')}`;
}

/** `delta replay`'s line about the replay's agent against the recorded run's. */
export function replayAgentLine(changes: Engine.FingerprintChanges | undefined, tools: Describe): string {
  if (changes === undefined) return "agent: not compared (the recorded run's engine did not record its agent's version)";
  if (changes.same) return "agent: the same version as the recorded run's";
  return `agent: differs from the recorded run's: ${tools.describeFingerprintChanges(changes)}`;
}

/**
 * `delta show run`'s lines about the agent's version: the fingerprint its first engine recorded, each later
 * engine start that found another version, and with `verbose` every file with its sha256.
 */
export function agentVersionLines(starts: readonly EngineStartEvent[], verbose: boolean, tools: FingerprintTools): string[] {
  const recorded = starts.filter((start) => start.agent_fingerprint !== undefined);
  const first = recorded[0]?.agent_fingerprint;
  if (first === undefined) return ["agent version: not recorded (the run's engine predates agent fingerprints)"];
  const lines = [`agent version: ${tools.shortFingerprint(first)}`];
  let previous = first;
  for (const [index, start] of starts.entries()) {
    const fingerprint = start.agent_fingerprint;
    if (fingerprint === undefined || fingerprint.sha256 === previous.sha256) continue;
    const changes = tools.compareFingerprints(previous, fingerprint);
    lines.push(
      `  engine start ${index + 1} found another version: ${tools.shortFingerprint(fingerprint)}, ${tools.describeFingerprintChanges(changes)}`,
    );
    previous = fingerprint;
  }
  if (verbose) for (const file of previous.files) lines.push(`  ${file.sha256}  ${file.path}`);
  return lines;
}

/** `delta replay` and `delta fork`: they ran the batch's kept copy of the run's version, not the edited agent. */
export function keptVersionLine(home: string): string {
  return `agent: the agent directory holds another version now; ran the version the run used, kept by its batch in ${home}`;
}
