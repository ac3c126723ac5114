import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type SandboxEnvConfig, toolEnvironment } from '@delta/engine';
import { diskWrite, parseJson } from '@delta/errors';
import { type BuiltinVerdict, builtinVerdict, parseBuiltinGrader } from './builtin-graders.js';
import { Grade } from './grade-schema.js';
import { GRADES_DIRECTORY, gradeFileOf, graderHash, readGrades, writeGrade } from './grade-store.js';
import { batchKeyVariables } from './batch-model-entry.js';
import { judgeRun, resolveJudge } from './model-judge.js';

export { Grade };

/** What a grader is told about the run it scores. */
export interface GradeInput {
  task: { id: string; message: string; metadata?: Record<string, unknown>; expected?: unknown };
  model: string;
  repeat: number;
  run_id: string;
  status: string;
  final_answer: string | null;
  work_dir: string;
  run_dir: string;
  /** The agent directory, so that a grader kept beside agent.yaml can be named from it. */
  agent_home: string;
}

export interface RunGraderOptions {
  command: string;
  input: GradeInput;
  /**
   * The environment the grader starts from (default `process.env`): a command grader gets of it what
   * `sandboxEnv` allows, as the agent's tools do; never a model key, nor a variable holding one's value.
   */
  environment?: NodeJS.ProcessEnv;
  /** agent.yaml's `sandbox.env` of the batch's agent; without it, the core. */
  sandboxEnv?: SandboxEnvConfig | undefined;
  /** More secret values (the run's key when given as an option, a queue's address): none reaches the grader. */
  secrets?: readonly string[] | undefined;
  timeoutMs?: number;
  /** The batch's models file: where a `model:NAME` grader finds its judge. */
  modelsFile?: string;
}

export const GRADE_INPUT_FILE = 'grade-input.json';
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const MAX_STDOUT = 1024 * 1024;
/** Larger values go only through grade-input.json: an environment variable has a size limit. */
const MAX_VARIABLE = 64 * 1024;

/**
 * The run's grade by `grader` (its own file, or a grade.json it wrote before grades were kept per grader),
 * or without `grader` the latest grade.json, whichever grader wrote it.
 */
export function readGrade(runDir: string, grader?: string): Grade | undefined {
  if (grader === undefined) {
    const file = gradeFileOf(runDir);
    if (!existsSync(file)) return undefined;
    return parseJson(readFileSync(file, 'utf8'), file, { schema: Grade });
  }
  return readGrades(runDir).get(graderHash(grader));
}

/** The variables that hold a model key: the engine's own names and every key variable of the batch's models file. */
function keyVariables(options: RunGraderOptions): string[] {
  return ['DELTA_API_KEY', 'OPENAI_API_KEY', ...batchKeyVariables({ models: [], models_file: options.modelsFile })];
}

/** The values of every model key the grader could find, and the caller's other secrets: none reaches it. */
function secretValues(options: RunGraderOptions): string[] {
  const environment = options.environment ?? process.env;
  const keys = keyVariables(options).map((name) => environment[name]?.trim());
  return [...keys, ...(options.secrets ?? [])].filter((value): value is string => value !== undefined && value !== '');
}

/** The input with every model key's value replaced: a final answer may quote one (a grader never gets a key). */
function withoutKeys(options: RunGraderOptions): GradeInput {
  const values = secretValues(options).filter((value) => value.length >= 8);
  const answer = options.input.final_answer;
  if (answer === null || values.length === 0) return options.input;
  return { ...options.input, final_answer: values.reduce((text, value) => text.replaceAll(value, '[REDACTED]'), answer) };
}

/** A command grader's environment: the agent's `sandbox.env` allow-list, as for its tools, then the run's facts. */
function graderEnvironment(options: RunGraderOptions, inputFile: string): Record<string, string> {
  const { input } = options;
  const expected = JSON.stringify(input.task.expected ?? null);
  const answer = input.final_answer ?? '';
  const facts = {
    DELTA_GRADE_INPUT: inputFile,
    DELTA_TASK_ID: input.task.id,
    DELTA_MODEL: input.model,
    DELTA_REPEAT: String(input.repeat),
    DELTA_RUN_ID: input.run_id,
    DELTA_RUN_STATUS: input.status,
    DELTA_RUN_DIR: input.run_dir,
    DELTA_WORK_DIR: input.work_dir,
    DELTA_AGENT_HOME: input.agent_home,
    ...(expected.length <= MAX_VARIABLE ? { DELTA_EXPECTED: expected } : {}),
    ...(answer.length <= MAX_VARIABLE ? { DELTA_FINAL_ANSWER: answer } : {}),
  };
  return toolEnvironment(options.environment ?? process.env, {
    policy: options.sandboxEnv,
    secrets: secretValues(options),
    engine: facts,
    paths: { agentHome: input.agent_home, workDir: input.work_dir },
  }).environment;
}

/** The grader's verdict from its last line of output (a JSON object with a numeric score) or its exit code. */
function verdict(stdout: string, exitCode: number | null): Pick<Grade, 'score' | 'passed' | 'details' | 'error'> {
  const last = stdout.trim().split('\n').at(-1)?.trim() ?? '';
  if (last.startsWith('{')) {
    let printed: unknown;
    // Not safeParseJson: a grader's bad last line becomes its grade's `error`, not a thrown error.
    try {
      printed = JSON.parse(last);
    } catch {
      return { score: null, passed: null, error: `the grader's last line is not valid JSON: ${last.slice(0, 200)}` };
    }
    const details = printed as Record<string, unknown>;
    if (typeof details.score !== 'number' || !Number.isFinite(details.score)) {
      return { score: null, passed: null, details, error: 'the grader printed a JSON object without a numeric "score"' };
    }
    return { score: details.score, passed: typeof details.passed === 'boolean' ? details.passed : null, details };
  }
  if (exitCode === 0) return { score: 1, passed: true };
  if (exitCode === 1) return { score: 0, passed: false };
  return {
    score: null,
    passed: null,
    error: `the grader exited with code ${exitCode ?? 'none (killed)'} and printed no {"score": ...} line`,
  };
}

/**
 * Runs a grader command (through sh, in the run's workspace), or a built-in grader (`builtin:NAME`) in this
 * process, on a finished run, and records its verdict in the run directory: `grades/<grader hash>.json` and
 * the latest `grade.json`. The journal is not touched.
 */
export async function runGrader(given: RunGraderOptions): Promise<Grade> {
  const options = { ...given, input: withoutKeys(given) };
  const { input } = options;
  const inputFile = join(input.run_dir, GRADE_INPUT_FILE);
  diskWrite(inputFile, () => writeFileSync(inputFile, `${JSON.stringify(input, null, 2)}\n`));
  const judge = resolveJudge(options.command, options.modelsFile, options.environment ?? process.env);
  if (judge !== undefined) {
    // A model of the models file judges the answer; its request and answer are kept beside the grade.
    const recordDir = join(input.run_dir, GRADES_DIRECTORY, `${graderHash(options.command)}.judge`);
    const verdict = await judgeRun(input, {
      entry: judge.entry,
      environment: options.environment ?? process.env,
      run: { workDir: input.work_dir, agentHome: input.agent_home },
      file: judge.file,
      recordDir,
      secretVariables: keyVariables(options),
      ...(judge.prompt === undefined ? {} : { prompt: judge.prompt }),
    });
    return recordGrade(options, verdict, null);
  }
  const builtin = parseBuiltinGrader(options.command);
  if (builtin !== undefined) {
    // A built-in grader compares in this process (a regex in a worker thread, bounded in time): nothing is started.
    return recordGrade(options, await builtinVerdict(builtin, input.task.expected, input.final_answer), null);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { stdout, stderr, exitCode, timedOut } = await new Promise<{
    stdout: string;
    stderr: string;
    exitCode: number | null;
    timedOut: boolean;
  }>((resolvePromise) => {
    // Its own process group, so that a timeout stops whatever the grader started too.
    const child = spawn('/bin/sh', ['-c', options.command], {
      cwd: input.work_dir,
      env: graderEnvironment(options, inputFile),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    let err = '';
    let expired = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (out.length < MAX_STDOUT) out += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString('utf8')).slice(-4000);
    });
    const timer = setTimeout(() => {
      expired = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolvePromise({ stdout: out, stderr: error.message, exitCode: null, timedOut: false });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ stdout: out, stderr: err, exitCode: code, timedOut: expired });
    });
  });
  const found = timedOut
    ? { score: null, passed: null, error: `the grader did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped` }
    : verdict(stdout, exitCode);
  return recordGrade(
    options,
    {
      ...found,
      ...(found.error !== undefined && stderr.trim() !== ''
        ? { error: `${found.error}; its stderr ends: ${stderr.trim().slice(-500)}` }
        : {}),
    },
    exitCode,
  );
}

function recordGrade(options: RunGraderOptions, found: BuiltinVerdict, exitCode: number | null): Grade {
  const grade: Grade = {
    ...found,
    grader: options.command,
    grader_hash: graderHash(options.command),
    exit_code: exitCode,
    run_id: options.input.run_id,
    graded_at: new Date().toISOString(),
  };
  writeGrade(options.input.run_dir, grade);
  return grade;
}
