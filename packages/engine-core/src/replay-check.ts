import type { ActionResultEvent } from '@delta/journal';
import { shortDiff } from './short-diff.js';

/** A place where a replay differs from the recorded run. */
export interface ReplayDivergence {
  /** The iteration (model call) where it differs. */
  iteration: number;
  /** The tool call whose result differs; absent for a request or the run's end. */
  action?: { id: string; name: string };
  /** What differed: the request the engine built, a tool's result, or how many model calls there were. */
  what: 'request' | 'observation' | 'status' | 'exit_code' | 'extra_call' | 'missing_calls';
  /** One line for a person. */
  summary: string;
  /** A short diff (`-` recorded, `+` replay); empty when there is nothing to show. */
  diff: string;
}

/**
 * What legitimately differs between the recorded run and its replay: where each ran (workspace, run id,
 * and the agent directory, which moves with a copied or cloned recording). The source's are the ones
 * its ENGINE_START recorded.
 */
export interface ReplayPlaces {
  source: { workDir: string; runId: string; agentHome: string };
  replay: { workDir: string; runId: string; agentHome: string };
}

function replaceAll(text: string, from: string, to: string): string {
  return from === '' || from === to ? text : text.split(from).join(to);
}

/** A text of the replay with its workspace and run id written as the recorded run's. */
export function asRecorded(text: string, places: ReplayPlaces, json: boolean): string {
  const quote = (value: string) => (json ? JSON.stringify(value).slice(1, -1) : value);
  // The workspace first: it may lie inside the agent directory (`<agent>/workspaces/W001`).
  let result = replaceAll(text, quote(places.replay.workDir), quote(places.source.workDir));
  result = replaceAll(result, quote(places.replay.agentHome), quote(places.source.agentHome));
  return replaceAll(result, quote(places.replay.runId), quote(places.source.runId));
}

/** What a replay leaves out of its comparisons: each match of these (global) patterns, in the recorded and the replayed text. */
export type ReplayMasks = readonly RegExp[];

/** The text with every match of the masks replaced by `<ignored>`. */
export function masked(text: string, masks: ReplayMasks): string {
  let result = text;
  for (const mask of masks) result = result.replace(mask, '<ignored>');
  return result;
}

/** A parsed JSON value with the masks applied to each string in it (message contents, tool arguments). */
function maskedJson(value: unknown, masks: ReplayMasks): unknown {
  if (typeof value === 'string') return masked(value, masks);
  if (Array.isArray(value)) return value.map((item) => maskedJson(item, masks));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskedJson(item, masks)]));
  }
  return value;
}

/** The request with the content of each tool message whose call already diverged set aside. */
function withoutReported(request: Record<string, unknown>, reported: ReadonlySet<string>): Record<string, unknown> {
  if (reported.size === 0 || !Array.isArray(request.messages)) return request;
  const messages = (request.messages as unknown[]).map((message) => {
    const { role, tool_call_id: id } = (message ?? {}) as { role?: unknown; tool_call_id?: unknown };
    return role === 'tool' && typeof id === 'string' && reported.has(id)
      ? { ...(message as object), content: '<reported above>' }
      : message;
  });
  return { ...request, messages };
}

function describeValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Compares a request the engine built with the recorded one, byte for byte once the replay's workspace
 * and run id are written as the recorded run's (and, with masks, each string in it masked on both sides;
 * the tool messages of calls in `reported`, whose results diverged already, left out).
 * The summary names the first part that differs.
 */
export function compareRequest(
  recorded: Buffer,
  sent: Uint8Array,
  places: ReplayPlaces,
  masks: ReplayMasks = [],
  reported: ReadonlySet<string> = new Set(),
): { summary: string; diff: string } | undefined {
  if (Buffer.compare(recorded, sent) === 0) return undefined;
  const recordedText = recorded.toString('utf8');
  const sentText = asRecorded(Buffer.from(sent.buffer, sent.byteOffset, sent.byteLength).toString('utf8'), places, true);
  if (recordedText === sentText) return undefined;
  let before: Record<string, unknown> | undefined;
  let after: Record<string, unknown> | undefined;
  // Not safeParseJson: a request that is not JSON is no error here, it is compared as text.
  try {
    before = JSON.parse(recordedText) as Record<string, unknown>;
    after = JSON.parse(sentText) as Record<string, unknown>;
  } catch {
    const [a, b] = [masked(recordedText, masks), masked(sentText, masks)];
    return a === b ? undefined : { summary: 'the request differs', diff: shortDiff(a, b) };
  }
  if (masks.length > 0 || reported.size > 0) {
    // The tool results a request carries hold the same volatile text as the results themselves, and a
    // result already reported as diverging is not reported again in every request after it.
    before = withoutReported(maskedJson(before, masks) as Record<string, unknown>, reported);
    after = withoutReported(maskedJson(after, masks) as Record<string, unknown>, reported);
    if (JSON.stringify(before) === JSON.stringify(after)) return undefined;
  }
  const beforeMessages = Array.isArray(before.messages) ? (before.messages as unknown[]) : [];
  const afterMessages = Array.isArray(after.messages) ? (after.messages as unknown[]) : [];
  for (let index = 0; index < Math.max(beforeMessages.length, afterMessages.length); index += 1) {
    const a = JSON.stringify(beforeMessages[index]);
    const b = JSON.stringify(afterMessages[index]);
    if (a === b) continue;
    const role = (afterMessages[index] ?? beforeMessages[index]) as { role?: string } | undefined;
    const where = `message ${index + 1} of ${afterMessages.length} (${role?.role ?? 'missing'})`;
    if (a === undefined) return { summary: `the request has an extra ${where}`, diff: shortDiff('', b ?? '') };
    if (b === undefined) return { summary: `the request lacks message ${index + 1} (${role?.role ?? '?'})`, diff: shortDiff(a, '') };
    return { summary: `${where} differs`, diff: shortDiff(a, b) };
  }
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key === 'messages') continue;
    const a = JSON.stringify(before[key]);
    const b = JSON.stringify(after[key]);
    if (a !== b) return { summary: `the request's "${key}" differs`, diff: shortDiff(a ?? '(absent)', b ?? '(absent)') };
  }
  return { summary: 'the request has the same content in other bytes (key order or spacing)', diff: shortDiff(recordedText, sentText) };
}

/** Compares a tool call's result in the replay with the recorded one, the masks' matches left out of the observation. */
export function compareResult(
  recorded: ActionResultEvent,
  found: ActionResultEvent,
  places: ReplayPlaces,
  masks: ReplayMasks = [],
): ReplayDivergence | undefined {
  const action = { id: found.action_id, name: found.tool_name };
  const at = `iteration ${found.iteration}, action ${found.action_id} (${found.tool_name})`;
  const observation = masked(asRecorded(found.observation_content, places, false), masks);
  const expected = masked(recorded.observation_content, masks);
  if (observation !== expected) {
    return {
      iteration: found.iteration,
      action,
      what: 'observation',
      summary: `${at}: the tool's observation differs`,
      diff: shortDiff(expected, observation),
    };
  }
  if (recorded.status !== found.status) {
    return {
      iteration: found.iteration,
      action,
      what: 'status',
      summary: `${at}: status ${found.status}, recorded ${recorded.status}`,
      diff: '',
    };
  }
  if (recorded.exit_code !== found.exit_code) {
    return {
      iteration: found.iteration,
      action,
      what: 'exit_code',
      summary: `${at}: exit code ${describeValue(found.exit_code)}, recorded ${describeValue(recorded.exit_code)}`,
      diff: '',
    };
  }
  return undefined;
}
