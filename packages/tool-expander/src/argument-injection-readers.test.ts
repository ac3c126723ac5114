import { describe, expect, it } from 'vitest';
import { safeExpandTool } from './index.js';

function warningsOf(definition: Record<string, unknown>): string[] {
  const result = safeExpandTool({ name: 't', ...definition }, { file: 'agent.yaml', path: 'tools[0]' });
  if (!result.success) throw result.error;
  return result.warnings.map((warning) => warning.message);
}

describe('argument injection: who reads the argument (issue 46, item 15)', () => {
  it.each([
    ['exec', 'delta-sessions start'],
    ['exec', 'delta-sessions exec ${session_id}'],
    ['exec', 'delta-sessions end ${session_id}'],
    ['exec', 'delta-sessions exec ${session_id} ${command}'],
  ])("does not warn for the spec's session tool %s: %j (spec 000 2.3.4): no option of delta-sessions does harm", (mode, template) => {
    expect(warningsOf({ [mode]: template })).toEqual([]);
  });

  it('names the script, not the interpreter, for a value after a script path, and suggests -- where the script reads it', () => {
    const [message] = warningsOf({ exec: 'python3 script.py ${x}' });
    expect(message).toContain('${x} is a whole argument of script.py with no -- before it');
    expect(message).toContain('Put -- before it (python3 script.py -- ${x})');
    expect(message).not.toContain('python3 -- ${x}');
    expect(warningsOf({ exec: 'node ${AGENT_HOME}/tools/run.mjs --verbose ${input}' })[0]).toContain(
      '(node ${AGENT_HOME}/tools/run.mjs --verbose -- ${input})',
    );
    expect(warningsOf({ command: ['bash', 'tools/fetch.sh'], parameters: [{ name: 'url' }] })[0]).toContain(
      '${url} is a whole argument of fetch.sh',
    );
  });

  it("does not warn once a -- stands between the script and the value; a -- before the script is the interpreter's", () => {
    expect(warningsOf({ exec: 'python3 script.py -- ${x}' })).toEqual([]);
    expect(warningsOf({ exec: 'python3 -u script.py -- ${x}' })).toEqual([]);
    expect(warningsOf({ exec: 'python3 -- script.py ${x}' })[0]).toContain('of script.py');
    expect(warningsOf({ command: ['python3', 'script.py', '--'], parameters: [{ name: 'x' }] })).toEqual([]);
  });

  it('still names the interpreter when the value is the script itself or an interpreter argument', () => {
    expect(warningsOf({ exec: 'python3 ${script}' })[0]).toContain('${script} is a whole argument of python3');
    expect(warningsOf({ exec: 'python3 -m ${module}' })[0]).toContain('${module} is a whole argument of python3');
  });
});
