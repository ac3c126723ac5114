import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DeltaError } from '@delta/errors';
import { build, cleanup, user } from '../../test/journal-events.js';

afterEach(cleanup);

const computed = (command: string, extra = '') =>
  `sources:\n  - type: computed_file\n    id: gen\n    generator:\n      command: [sh, -c, '${command}']\n${extra}    output_path: '\${CWD}/out/gen.md'\n`;

describe('file sources', () => {
  it('become system blocks with ${AGENT_HOME} and ${CWD} substituted, in source order around the journal', async () => {
    const { work, run } = await build(
      "sources:\n  - type: file\n    path: '${AGENT_HOME}/prompt.md'\n  - type: journal\n  - type: file\n    id: guide\n    path: '${CWD}/DELTA.md'\n",
      { files: { 'prompt.md': 'Be brief.' }, events: [user('hi')] },
    );
    writeFileSync(join(work, 'DELTA.md'), '# Guide\nUse make.');
    expect(await run()).toEqual([
      { role: 'system', content: '# Context Block: file_0\n\nBe brief.' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: '# Context Block: guide\n\n# Guide\nUse make.' },
    ]);
  });

  it('on_missing: error names the source, the field and the fix; on_missing: skip leaves it out', async () => {
    const missing = await build("sources:\n  - type: file\n    id: guide\n    path: '${CWD}/DELTA.md'\n");
    const error = await missing.run().catch((caught: unknown) => caught);
    expect(DeltaError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      kind: 'configuration',
      code: 'CONTEXT_SOURCE_MISSING',
      file: missing.loaded.file,
      field: 'sources[0].path',
      message: `context source "guide" (file): ${join(missing.work, 'DELTA.md')} does not exist`,
      hint: 'Create the file, fix the path, or add `on_missing: skip` to the source.',
    });
    const skipped = await build("sources:\n  - type: file\n    path: '${CWD}/DELTA.md'\n    on_missing: skip\n  - type: journal\n", {
      events: [user('hi')],
    });
    expect(await skipped.run()).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('leaves out a directory where a file should be, with a note naming it', async () => {
    const { work, run } = await build("sources:\n  - type: file\n    path: '${CWD}/docs'\n");
    mkdirSync(join(work, 'docs'));
    expect(await run()).toEqual([
      {
        role: 'system',
        content: `# Context Block: file_0\n\n[Not included: ${join(work, 'docs')} is a directory, not a regular file. The engine reads context files only as regular files inside the workspace or the agent directory.]`,
      },
    ]);
  });
});

describe('file sources a tool could have written', () => {
  const guide = "sources:\n  - type: file\n    id: guide\n    path: '${CWD}/DELTA.md'\n    on_missing: skip\n";
  const note = (reason: string) =>
    `# Context Block: guide\n\n[Not included: ${reason}. The engine reads context files only as regular files inside the workspace or the agent directory.]`;

  it('leave out a link to /proc/self/environ, with a note and a notice naming it', async () => {
    const notices: string[] = [];
    const { work, run } = await build(guide, { extra: { onNotice: (line) => notices.push(line) } });
    symlinkSync('/proc/self/environ', join(work, 'DELTA.md'));
    const [block] = await run();
    expect(block).toEqual({
      role: 'system',
      content: expect.stringMatching(
        /^# Context Block: guide\n\n\[Not included: .*DELTA\.md is a symbolic link to \/proc\/\d+\/environ, a system file\./,
      ),
    });
    expect(JSON.stringify(block)).not.toContain('PATH=');
    expect(notices).toEqual([
      expect.stringMatching(/^context source "guide" \(file\) was left out: .*DELTA\.md is a symbolic link to \/proc\//),
    ]);
  });

  it('leave out a link to a file outside the workspace and the agent directory', async () => {
    const { agent, work, run } = await build(guide);
    const outside = mkdtempSync(join(tmpdir(), 'outside-'));
    try {
      writeFileSync(join(outside, 'secret'), 'host secret');
      symlinkSync(join(outside, 'secret'), join(work, 'DELTA.md'));
      const link = join(work, 'DELTA.md');
      expect(await run()).toEqual([
        { role: 'system', content: note(`${link} is a symbolic link to ${join(outside, 'secret')}, outside ${work} and ${agent}`) },
      ]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('follow a link that stays in the agent directory', async () => {
    const { agent, work, run } = await build(guide, { files: { 'guide.md': 'Use make.' } });
    symlinkSync(join(agent, 'guide.md'), join(work, 'DELTA.md'));
    expect(await run()).toEqual([{ role: 'system', content: '# Context Block: guide\n\nUse make.' }]);
  });

  it('leave out a FIFO at once', async () => {
    const { work, run } = await build(guide);
    execFileSync('mkfifo', [join(work, 'DELTA.md')]);
    expect(await run()).toEqual([
      { role: 'system', content: note(`${join(work, 'DELTA.md')} is a FIFO (named pipe), not a regular file`) },
    ]);
  });
});

describe('computed_file sources', () => {
  it('run in the workspace with the 2.4.3 variables, are recorded, and become a system block', async () => {
    const script =
      'mkdir -p out && printf "%s|%s|%s|%s|%s" "$(pwd)" "$DELTA_RUN_ID" "$DELTA_AGENT_HOME" "$DELTA_CWD" "$JOURNAL_PATH" > out/gen.md && echo done && echo note >&2';
    const holder = { record: '' };
    const { agent, work, run } = await build(computed(script), {
      extra: { recordDirectory: (index, source) => join(holder.record, `${index}_${source.id}`) },
    });
    holder.record = join(work, 'io-context');
    expect(await run()).toEqual([
      { role: 'system', content: `# Context Block: gen\n\n${work}|R1|${agent}|${work}|${join(work, 'journal.jsonl')}` },
    ]);
    const record = join(holder.record, '0_gen');
    expect(JSON.parse(readFileSync(join(record, 'command.txt'), 'utf8'))).toEqual(['sh', '-c', script]);
    expect(readFileSync(join(record, 'stdout.log'), 'utf8')).toBe('done\n');
    expect(readFileSync(join(record, 'stderr.log'), 'utf8')).toBe('note\n');
    expect(readFileSync(join(record, 'exit_code.txt'), 'utf8')).toBe('0\n');
  });

  it('substitutes ${AGENT_HOME} and ${CWD} in the generator command', async () => {
    const { agent, work, run } = await build(
      "sources:\n  - type: computed_file\n    generator:\n      command: [sh, '${AGENT_HOME}/gen.sh', '${CWD}']\n    output_path: '${CWD}/g.md'\n",
      { files: { 'gen.sh': 'printf "arg=%s" "$1" > g.md' } },
    );
    expect(await run()).toEqual([{ role: 'system', content: `# Context Block: computed_file_0\n\narg=${work}` }]);
    expect(agent).not.toBe(work);
  });

  it('a failing generator is an error with its stderr, or is skipped with on_missing: skip', async () => {
    const failing = await build(computed('echo disk full >&2; exit 3'));
    await expect(failing.run()).rejects.toMatchObject({
      kind: 'system',
      code: 'CONTEXT_GENERATOR_FAILED',
      field: 'sources[0].generator',
      message: 'context source "gen" (computed_file): the generator exited with 3\nstderr:\ndisk full',
    });
    const skipped = await build(computed('echo disk full >&2; exit 3', '    on_missing: skip\n'));
    expect(await skipped.run()).toEqual([]);
  });

  it('a generator that cannot start is an error that says why', async () => {
    const { run } = await build(
      "sources:\n  - type: computed_file\n    generator:\n      command: ['${AGENT_HOME}/no-such-generator']\n    output_path: '${CWD}/g.md'\n",
    );
    await expect(run()).rejects.toThrow(/context source "computed_file_0" \(computed_file\): the generator .*(ENOENT|not found|no such)/i);
  });

  it('a hanging generator is killed at timeout_ms, quickly, with its stderr in the error', async () => {
    const hanging = computed('echo working >&2; sleep 30', '    on_missing: error\n').replace(
      '    on_missing',
      '      timeout_ms: 300\n    on_missing',
    );
    const { run } = await build(hanging);
    const started = performance.now();
    await expect(run()).rejects.toThrow(
      'context source "gen" (computed_file): the generator timed out after 300 ms and was stopped\nstderr:\nworking',
    );
    expect(performance.now() - started).toBeLessThan(2500);

    const skipped = await build(hanging.replace('on_missing: error', 'on_missing: skip'));
    const again = performance.now();
    expect(await skipped.run()).toEqual([]);
    expect(performance.now() - again).toBeLessThan(2500);
  });

  it('a generator that succeeds without writing output_path: error, or skip', async () => {
    const silent = await build(computed('true'));
    await expect(silent.run()).rejects.toMatchObject({
      code: 'CONTEXT_SOURCE_MISSING',
      field: 'sources[0].output_path',
      message: `context source "gen" (computed_file): ${join(silent.work, 'out/gen.md')} does not exist`,
    });
    const skipped = await build(computed('true', '    on_missing: skip\n'));
    expect(await skipped.run()).toEqual([]);
  });
});
