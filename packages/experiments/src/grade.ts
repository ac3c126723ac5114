import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type SandboxEnvConfig, type SandboxRecord, toolEnvironment, workspaceSandbox } from '@delta/engine';
import { pathsHiddenBySandbox } from '@delta/command-runner';
import { diskWrite, parseJson } from '@delta/errors';
import { type BuiltinVerdict, builtinVerdict, parseBuiltinGrader } from './builtin-graders.js';
import { Grade } from './grade-schema.js';
import { GRADES_DIRECTORY, gradeFileOf, graderHash, readGrades, writeGrade } from './grade-store.js';
import { batchKeyVariables } from './batch-model-entry.js';
import { judgeRun, resolveJudge } from './model-judge.js';
import { type GraderPlace, runCommandGrader } from './command-grader.js';
import { replacedGraderPrograms } from './replaced-programs.js';

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
  /** A run in an image: a command grader runs in the run's final environment (see command-grader.ts). */
  image?: GraderPlace['image'];
  /**
   * The sandbox the run's tools ran in, as its ENGINE_START recorded it: a command grader of a run without
   * an image runs in the same (see command-grader.ts), and one in an image with the same network.
   */
  runSandbox?: Pick<SandboxRecord, 'mode' | 'network'> | undefined;
  /** The limits the run ran into (metadata.json's `limits_hit`), recorded with its grade. */
  limitsHit?: readonly string[] | undefined;
}

export const GRADE_INPUT_FILE = 'grade-input.json';
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
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
  const replaced = options.image ? replacedGraderPrograms(options.command, options.image.runLayer) : [];
  if (replaced.length > 0) {
    // The verifier would run the run's own programs: whatever it said would be the run's word, not its own.
    const error = `the run changed the verifier's own programs in its layer: ${replaced.join(', ')}; the grader was not run`;
    return recordGrade(options, { score: null, passed: null, error, ran_in: 'image' }, null);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const env = graderEnvironment(options, inputFile);
  const tools =
    options.runSandbox && !options.image ? workspaceSandbox(options.runSandbox, input.work_dir, input.agent_home, env.PATH) : undefined;
  // The grader's own files under /tmp that its command names (its script, a list it reads): visible, read only.
  const sandbox = tools && { ...tools, visiblePaths: [...tools.visiblePaths, ...pathsHiddenBySandbox(tools, [options.command])] };
  const place: GraderPlace = {
    recordDir: join(input.run_dir, GRADES_DIRECTORY, `${graderHash(options.command)}.grader`),
    ...(options.image ? { image: { ...options.image, ...(options.runSandbox ? { network: options.runSandbox.network } : {}) } } : {}),
    ...(sandbox ? { sandbox } : {}),
  };
  const { result, reward, records } = await runCommandGrader(options.command, {
    cwd: input.work_dir,
    env,
    timeoutMs,
    input: inputFile,
    place,
  });
  const stdout = `${result.stdout.head}${result.stdout.tail}`;
  const stderr = `${result.stderr.head}${result.stderr.tail}`;
  const found = result.timedOut
    ? {
        score: null,
        passed: null,
        timed_out: true,
        error: `the grader did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped`,
      }
    : reward !== undefined
      ? rewardVerdict(reward)
      : result.startError !== undefined
        ? { score: null, passed: null, error: `the grader could not start: ${result.startError}` }
        : verdict(stdout, result.exitCode);
  return recordGrade(
    options,
    {
      ...found,
      output: records,
      ran_in: options.image ? 'image' : 'host',
      ...(found.error !== undefined && stderr.trim() !== ''
        ? { error: `${found.error}; its stderr ends: ${stderr.trim().slice(-500)}` }
        : {}),
    },
    result.exitCode,
  );
}

/** Harbor's verdict: /logs/verifier/reward.txt (a number) or reward.json (`{"reward": N}`, or other numbers). */
function rewardVerdict(reward: { file: string; text: string; refused?: string }): Pick<Grade, 'score' | 'passed' | 'details' | 'error'> {
  let score: number | undefined;
  let details: Record<string, unknown> = { reward_file: reward.file };
  if (reward.refused !== undefined) {
    return { score: null, passed: null, details, error: `the verifier's ${reward.file} was not read: it ${reward.refused}` };
  }
  if (reward.file === 'reward.txt') score = Number(reward.text.trim());
  else {
    try {
      const parsed = JSON.parse(reward.text) as unknown;
      if (typeof parsed === 'number') score = parsed;
      else if (parsed !== null && typeof parsed === 'object') {
        details = { ...details, reward: parsed };
        const values = parsed as Record<string, unknown>;
        score =
          typeof values.reward === 'number'
            ? values.reward
            : (Object.values(values).find((value) => typeof value === 'number') as number | undefined);
      }
    } catch {
      score = undefined;
    }
  }
  if (score === undefined || !Number.isFinite(score)) {
    return {
      score: null,
      passed: null,
      details,
      error: `the verifier's ${reward.file} holds no number: ${reward.text.trim().slice(0, 200)}`,
    };
  }
  return { score, passed: score >= 1 ? true : score <= 0 ? false : score >= 0.5, details };
}

function recordGrade(
  options: RunGraderOptions,
  found: BuiltinVerdict & Pick<Grade, 'output' | 'ran_in' | 'timed_out'>,
  exitCode: number | null,
): Grade {
  const limitsHit = options.limitsHit ?? [];
  const grade: Grade = {
    ...found,
    ...(limitsHit.length > 0 ? { limits_hit: [...limitsHit] } : {}),
    grader: options.command,
    grader_hash: graderHash(options.command),
    exit_code: exitCode,
    run_id: options.input.run_id,
    graded_at: new Date().toISOString(),
  };
  writeGrade(options.input.run_dir, grade);
  return grade;
}
