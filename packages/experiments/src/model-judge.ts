import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createModelClient, resolveModelSettings } from '@delta/engine';
import { ConfigurationError, diskWrite, makeDirectory } from '@delta/errors';
import { judgeCostOf } from './judge-usage.js';
import { modelClientOptionsOf, modelKeyOf } from './model-entry.js';
import { type ModelEntry, pickModelEntry, readModelsFile } from './models-file.js';

/** `--grader model:NAME`: a model of the models file judges each run. */
export const JUDGE_PREFIX = 'model:';

/** A `model:NAME` or `model:NAME:PROMPT_FILE` grader: the judge's entry in the models file, and its prompt's file. */
export interface JudgeGrader {
  name: string;
  promptFile?: string;
}

/** The judge a `model:NAME[:PROMPT_FILE]` grader names, or undefined for any other grader. */
export function parseJudgeGrader(grader: string): JudgeGrader | undefined {
  if (!grader.startsWith(JUDGE_PREFIX)) return undefined;
  const rest = grader.slice(JUDGE_PREFIX.length);
  const colon = rest.indexOf(':');
  const name = (colon < 0 ? rest : rest.slice(0, colon)).trim();
  const promptFile = colon < 0 ? undefined : rest.slice(colon + 1).trim();
  if (name === '') return undefined;
  return { name, ...(promptFile ? { promptFile } : {}) };
}

/**
 * The judge of a `model:NAME[:PROMPT_FILE]` grader, checked before any run: the batch's models file has the
 * entry, its key variable is set, and the prompt file (if any) is there. Undefined for any other grader.
 */
export function resolveJudge(
  grader: string,
  modelsFile: string | undefined,
  environment: NodeJS.ProcessEnv,
): { entry: ModelEntry; file: string; prompt?: string } | undefined {
  const judge = parseJudgeGrader(grader);
  if (judge === undefined) return undefined;
  if (modelsFile === undefined) {
    throw new ConfigurationError(`--grader ${grader} names a judge model, and the batch has no models file.`, {
      code: 'USAGE',
      field: '--grader',
      hint: `Give the batch a models file with an entry named ${judge.name} (delta batch ... --models models.yaml --model A,B --grader ${grader}; --model keeps the judge out of the models being compared).`,
    });
  }
  const models = readModelsFile(modelsFile);
  const entry = pickModelEntry(models, judge.name);
  modelKeyOf(entry, environment, models.file);
  let prompt: string | undefined;
  if (judge.promptFile !== undefined) {
    const file = resolve(judge.promptFile);
    if (!existsSync(file)) {
      throw new ConfigurationError(`--grader ${grader}: the judge's prompt file ${file} does not exist.`, {
        code: 'USAGE',
        field: '--grader',
        hint: 'Write the prompt the judge model is given, ending with how to answer: a last line {"score": <0 to 1>, "passed": <true|false>, "reason": "..."}.',
      });
    }
    prompt = readFileSync(file, 'utf8');
  }
  return { entry, file: models.file, ...(prompt === undefined ? {} : { prompt }) };
}

/** What the judge is asked, unless the batch gives its own prompt (`judge_prompt`, see docs/experiments.md). */
export const DEFAULT_JUDGE_PROMPT = [
  "You grade an AI agent's final answer to a task. You are given the task, what a correct answer is expected",
  "to contain (as JSON; it may be missing), and the agent's final answer. Judge only the final answer.",
  'End your reply with one line holding a JSON object and nothing else:',
  '{"score": <a number from 0 to 1>, "passed": <true or false>, "reason": "<one sentence>"}',
].join('\n');

/** The request parameters of an entry that a judge's request carries (the rest of `llm:` is not for the server). */
const REQUEST_PARAMETERS = ['temperature', 'top_p', 'max_tokens', 'max_completion_tokens', 'seed', 'reasoning_effort', 'stop'] as const;

export interface JudgeInput {
  task: { id: string; message: string; expected?: unknown };
  final_answer: string | null;
}

export interface JudgeOptions {
  entry: ModelEntry;
  /** Where the entry's key is read from (its `api_key_env`). */
  environment: NodeJS.ProcessEnv;
  /** The models file, for messages. */
  file?: string;
  /**
   * The run's workspace and agent directory: an entry without `base_url` finds its endpoint as a run does
   * (the agent's and the project root's `.env`, then the environment), never from the workspace's `.env`,
   * which the run's tools could write.
   */
  run?: { workDir: string; agentHome: string };
  prompt?: string;
  /** The judge's request and answer are written here (`request.json`, `response.json`), as a run's invocations are. */
  recordDir: string;
  /** Variables of other model keys (the models file's), whose values are redacted from what the judge is sent and says. */
  secretVariables?: readonly string[];
  signal?: AbortSignal;
}

export interface JudgeVerdict {
  score: number | null;
  passed: boolean | null;
  details?: Record<string, unknown>;
  error?: string;
}

/** The last line of the judge's answer that is a JSON object with a numeric score from 0 to 1. */
function verdictOf(text: string): { score: number; passed?: boolean; reason?: string } | undefined {
  const lines = text.trim().split('\n').reverse();
  for (const line of lines) {
    const candidate = line
      .trim()
      .replace(/^```(?:json)?|```$/g, '')
      .trim();
    if (!candidate.startsWith('{')) continue;
    // Not safeParseJson: a line that is not JSON is no error, the line above is tried.
    try {
      const value = JSON.parse(candidate) as { score?: unknown; passed?: unknown; reason?: unknown };
      if (typeof value.score !== 'number' || !(value.score >= 0 && value.score <= 1)) continue;
      return {
        score: value.score,
        ...(typeof value.passed === 'boolean' ? { passed: value.passed } : {}),
        ...(typeof value.reason === 'string' ? { reason: value.reason } : {}),
      };
    } catch {
      // Not this line.
    }
  }
  return undefined;
}

/**
 * Asks a judge model (one entry of the models file) to score a run's final answer: one request, recorded
 * with its answer under `recordDir` (the key is never in either: it travels in a header, and an answer that
 * quotes it is redacted). The verdict is the last JSON line of the answer; its cost is the entry's prices.
 */
export async function judgeRun(input: JudgeInput, options: JudgeOptions): Promise<JudgeVerdict> {
  const { entry } = options;
  const clientOptions = modelClientOptionsOf(entry, options.environment, options.file);
  if (clientOptions.baseUrl === undefined && options.run !== undefined) {
    const found = resolveModelSettings(options.run.workDir, options.run.agentHome, options.environment, {
      skipWorkspaceEnv: true,
      ...(clientOptions.apiKey === undefined ? {} : { apiKey: { value: clientOptions.apiKey, name: entry.api_key_env } }),
    }).baseUrl;
    if (found !== undefined) clientOptions.baseUrl = found;
  }
  const secrets = [clientOptions.apiKey, ...(options.secretVariables ?? []).map((name) => options.environment[name]?.trim())].filter(
    (value): value is string => value !== undefined && value.length >= 8,
  );
  const redact = (text: string) => secrets.reduce((redacted, secret) => redacted.replaceAll(secret, '[REDACTED]'), text);
  const parameters = Object.fromEntries(
    REQUEST_PARAMETERS.filter((name) => entry[name as keyof ModelEntry] !== undefined).map((name) => [
      name,
      entry[name as keyof ModelEntry],
    ]),
  );
  const expected = input.task.expected === undefined ? '(none given)' : JSON.stringify(input.task.expected);
  const payload = {
    model: entry.model,
    messages: [
      { role: 'system' as const, content: options.prompt ?? DEFAULT_JUDGE_PROMPT },
      {
        role: 'user' as const,
        content: redact(
          `Task:\n${input.task.message}\n\nExpected (JSON):\n${expected}\n\nThe agent's final answer:\n${input.final_answer ?? '(the run gave none)'}`,
        ),
      },
    ],
    ...parameters,
    ...(entry.extra_body ?? {}),
  };
  makeDirectory(options.recordDir);
  const requestFile = join(options.recordDir, 'request.json');
  const responseFile = join(options.recordDir, 'response.json');
  const judge = { model: entry.name, model_id: entry.model, request: requestFile, response: responseFile };
  const client = await createModelClient(clientOptions);
  let response;
  try {
    response = await client.complete(payload as never, {
      ...(options.signal ? { signal: options.signal } : {}),
      onRequestBody: (body) =>
        diskWrite(requestFile, () => writeFileSync(requestFile, typeof body === 'string' ? body : Buffer.from(body))),
    });
  } catch (error) {
    return {
      score: null,
      passed: null,
      details: { judge },
      error: `the judge model ${entry.name} did not answer: ${redact(error instanceof Error ? error.message : String(error))}`,
    };
  }
  diskWrite(responseFile, () => writeFileSync(responseFile, `${redact(JSON.stringify(response, null, 2))}\n`));
  const text = redact(String(response.choices[0]?.message?.content ?? ''));
  const usage = response.usage
    ? {
        input_tokens: response.usage.prompt_tokens,
        output_tokens: response.usage.completion_tokens,
        ...(entry.pricing ? judgeCostOf(response.usage, entry.pricing) : {}),
      }
    : undefined;
  const found = verdictOf(text);
  if (found === undefined) {
    return {
      score: null,
      passed: null,
      details: { judge, answer: text.slice(-2000), ...(usage ? { usage } : {}) },
      error: `the judge model ${entry.name} answered without a last line {"score": <0 to 1>, ...}`,
    };
  }
  return {
    score: found.score,
    passed: found.passed ?? found.score >= 0.5,
    details: { judge, ...(found.reason ? { reason: found.reason } : {}), ...(usage ? { usage } : {}) },
  };
}
