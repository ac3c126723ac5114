import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ScriptFileError, parseScript } from './parse-script.js';
import type { ScriptStep } from './script-step.js';

/** Reads a YAML or JSON script file and validates it; errors name the file, the step index and the field. */
export function loadScript(file: string): ScriptStep[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file does not exist' : String(error);
    throw new ScriptFileError(`${file}: cannot read the script: ${reason}`, { file, cause: error });
  }
  let value: unknown;
  try {
    // YAML 1.2 is a superset of JSON, so one parser reads both.
    value = parse(text);
  } catch (error) {
    throw new ScriptFileError(`${file}: not valid YAML or JSON: ${(error as Error).message}`, { file, cause: error });
  }
  return parseScript(value, file);
}
