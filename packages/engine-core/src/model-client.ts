import type { StreamDelta } from '@delta/model-wire';

/**
 * One piece of a streamed model answer, as the library hands it to `onModelDelta`: the iteration and the
 * invocation (its io/invocations/ directory) it belongs to, then text, reasoning, or part of a tool call
 * (`index` counts the answer's calls from 0; `id`, `name` and `arguments` are what this piece adds).
 */
export type ModelDelta = { iteration: number; invocation_id: string } & StreamDelta;
