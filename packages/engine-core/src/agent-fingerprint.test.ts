import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { cleanupTempDirs, createTempAgent, createTempDir } from '@delta/testkit';
import { agentFingerprint, fingerprintOf } from './agent-fingerprint.js';
import { compareFingerprints, describeFingerprintChanges } from './fingerprint-changes.js';
import { loadAgent } from './load-agent.js';

afterAll(cleanupTempDirs);

const script = { content: '#!/bin/sh\necho hi\n', mode: 0o755 };

/** An agent whose tools, hook and generator each name a script, with an import and a file nobody names. */
async function fullAgent(): Promise<string> {
  return createTempAgent({
    agentYaml: {
      name: 'fp',
      llm: { model: 'm' },
      imports: ['tools/shared.yaml'],
      tools: [
        { name: 'run_exec', exec: '${AGENT_HOME}/tools/exec.sh ${x}' },
        { name: 'run_shell', shell: 'bash ${AGENT_HOME}/tools/shell.sh ${x} | wc -l' },
        { name: 'run_command', command: ['python3', 'tools/command.py'] },
      ],
      mcp_servers: [{ name: 'files', command: 'node', args: ['${AGENT_HOME}/mcp/server.js', '${CWD}'] }],
    },
    hooksYaml: { pre_llm_request: { command: ['${AGENT_HOME}/hooks/pre.sh'] } },
    contextYaml: {
      sources: [
        { type: 'file', path: '${AGENT_HOME}/system_prompt.md' },
        { type: 'computed_file', generator: { command: ['sh', '${AGENT_HOME}/gen/notes.sh'] }, output_path: '${CWD}/notes.md' },
        { type: 'journal' },
      ],
    },
    files: {
      'tools/shared.yaml': 'tools:\n  - name: shared\n    exec: "${AGENT_HOME}/tools/imported.sh"\n',
      'tools/exec.sh': script,
      'tools/shell.sh': script,
      'tools/command.py': 'print(1)\n',
      'tools/imported.sh': script,
      'hooks/pre.sh': script,
      'gen/notes.sh': script,
      'mcp/server.js': 'console.log(1);\n',
      'notes/unnamed.txt': 'not part of the agent\n',
    },
  });
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('agentFingerprint', () => {
  it('covers agent.yaml, imports, the prompt, context.yaml, hooks.yaml and every script a tool, MCP server, hook or generator names', async () => {
    const home = await fullAgent();
    const fingerprint = agentFingerprint(loadAgent(home));
    // A file no part of the agent names is left out, though it sits in the agent directory.
    expect(fingerprint.files.map((file) => file.path)).not.toContain('notes/unnamed.txt');
    expect(fingerprint.files.map((file) => file.path)).toEqual([
      'agent.yaml',
      'context.yaml',
      'gen/notes.sh',
      'hooks.yaml',
      'hooks/pre.sh',
      'mcp/server.js',
      'system_prompt.md',
      'tools/command.py',
      'tools/exec.sh',
      'tools/imported.sh',
      'tools/shared.yaml',
      'tools/shell.sh',
    ]);
    expect(fingerprint.files.find((file) => file.path === 'tools/exec.sh')?.sha256).toBe(sha(script.content));
    // The hash of the list as `sha256sum` prints it, in path order.
    expect(fingerprint.sha256).toBe(sha(fingerprint.files.map((file) => `${file.sha256}  ${file.path}\n`).join('')));
  });

  it('changes when an import or a named script changes, and not when a file nobody names does', async () => {
    const home = await fullAgent();
    const before = agentFingerprint(loadAgent(home));
    writeFileSync(join(home, 'notes/unnamed.txt'), 'edited\n');
    expect(agentFingerprint(loadAgent(home)).sha256).toBe(before.sha256);

    writeFileSync(join(home, 'tools/shell.sh'), '#!/bin/sh\necho changed\n');
    const afterScript = agentFingerprint(loadAgent(home));
    expect(describeFingerprintChanges(compareFingerprints(before, afterScript))).toBe('tools/shell.sh changed');

    writeFileSync(join(home, 'tools/shared.yaml'), 'tools:\n  - name: shared\n    exec: "echo"\n');
    const afterImport = agentFingerprint(loadAgent(home));
    expect(describeFingerprintChanges(compareFingerprints(afterScript, afterImport))).toBe(
      'tools/shared.yaml changed, tools/imported.sh removed',
    );
  });

  it('sees a rewrite that keeps the size and the mtime, whether the file was just written or long settled', async () => {
    const home = await fullAgent();
    const agent = loadAgent(home);
    const script = join(home, 'tools/shell.sh');
    const rewrite = (text: string) => {
      const { atime, mtime } = statSync(script);
      writeFileSync(script, text);
      utimesSync(script, atime, mtime);
    };
    const first = agentFingerprint(agent);
    // Just written: its ctime is too recent for its digest to be kept, so the same-size rewrite is read.
    rewrite(readFileSync(script, 'utf8').replace('echo', 'ECHO'));
    const second = agentFingerprint(agent);
    expect(describeFingerprintChanges(compareFingerprints(first, second))).toBe('tools/shell.sh changed');
    // Settled: its digest is kept by its identity on disk, and a same-size rewrite changes its ctime.
    await expect.poll(() => Date.now() - statSync(script).ctimeMs > 2100, { timeout: 10_000, interval: 50 }).toBe(true);
    expect(agentFingerprint(agent)).toEqual(second);
    expect(agentFingerprint(agent)).toEqual(second);
    rewrite(readFileSync(script, 'utf8').replace('ECHO', 'echo'));
    expect(describeFingerprintChanges(compareFingerprints(second, agentFingerprint(agent)))).toBe('tools/shell.sh changed');
    expect(agentFingerprint(agent)).toEqual(first);
  });

  it('sees a prompt added or removed after the agent was loaded', async () => {
    // A prompt only agent.yaml names (no context source reads it by path).
    const home = await createTempAgent({
      agentYaml: { name: 'fp', llm: { model: 'm' }, system_prompt: 'prompt.md' },
      contextYaml: { sources: [{ type: 'journal' }] },
      files: { 'prompt.md': 'The prompt.\n' },
    });
    const agent = loadAgent(home);
    const prompt = join(home, 'prompt.md');
    rmSync(prompt);
    // First fingerprinted with no prompt: the one added later is part of the next.
    const without = agentFingerprint(agent);
    writeFileSync(prompt, 'A new prompt.\n');
    const withPrompt = agentFingerprint(agent);
    expect(describeFingerprintChanges(compareFingerprints(without, withPrompt))).toBe('prompt.md added');
    rmSync(prompt);
    expect(describeFingerprintChanges(compareFingerprints(withPrompt, agentFingerprint(agent)))).toBe('prompt.md removed');
  });

  it('leaves out a link that leads out of the agent directory and workspace paths', async () => {
    const outside = await createTempDir();
    writeFileSync(join(outside, 'secret.sh'), 'secret\n');
    const home = await createTempAgent({
      agentYaml: {
        name: 'fp',
        llm: { model: 'm' },
        tools: [
          { name: 'linked', exec: '${AGENT_HOME}/linked.sh' },
          { name: 'workspace', exec: '${CWD}/system_prompt.md' },
          { name: 'escape', exec: '${AGENT_HOME}/../x.sh' },
        ],
      },
    });
    symlinkSync(join(outside, 'secret.sh'), join(home, 'linked.sh'));
    const paths = agentFingerprint(loadAgent(home)).files.map((file) => file.path);
    expect(paths).toEqual(['agent.yaml', 'context.yaml', 'system_prompt.md']);
  });

  it('does not depend on the order the files were found in', () => {
    const files = [
      { path: 'b.sh', sha256: sha('b') },
      { path: 'a.yaml', sha256: sha('a') },
      { path: 'c/d.md', sha256: sha('d') },
    ];
    const forward = fingerprintOf(files);
    const backward = fingerprintOf([...files].reverse());
    expect(backward).toEqual(forward);
    expect(forward.files.map((file) => file.path)).toEqual(['a.yaml', 'b.sh', 'c/d.md']);
  });
});

describe('compareFingerprints', () => {
  it('names each changed, added and removed file', () => {
    const before = fingerprintOf([
      { path: 'agent.yaml', sha256: sha('1') },
      { path: 'system_prompt.md', sha256: sha('2') },
      { path: 'tools/old.sh', sha256: sha('3') },
    ]);
    const after = fingerprintOf([
      { path: 'agent.yaml', sha256: sha('1') },
      { path: 'system_prompt.md', sha256: sha('changed') },
      { path: 'tools/new.sh', sha256: sha('3') },
    ]);
    const changes = compareFingerprints(before, after);
    expect(changes).toEqual({ same: false, changed: ['system_prompt.md'], added: ['tools/new.sh'], removed: ['tools/old.sh'] });
    expect(describeFingerprintChanges(changes)).toBe('system_prompt.md changed, tools/new.sh added, tools/old.sh removed');
    expect(compareFingerprints(before, before).same).toBe(true);
    expect(describeFingerprintChanges(compareFingerprints(before, before))).toBe('the same files');
  });
});
