import { anthropic } from './profiles/anthropic.js';
import { deepSeek } from './profiles/deepseek.js';
import { gemini } from './profiles/gemini.js';
import { liteLlm } from './profiles/litellm.js';
import { llamaCpp } from './profiles/llama-cpp.js';
import { lmStudio } from './profiles/lm-studio.js';
import { ollama } from './profiles/ollama.js';
import { openai } from './profiles/openai.js';
import { openRouter } from './profiles/openrouter.js';
import { vllm } from './profiles/vllm.js';
import type { ServerProfile } from './server-profile.js';
import { ConfigurationError } from '@delta/errors';

/** Every server the fake model can imitate; `openai` is the default. */
export const SERVER_PROFILES: readonly ServerProfile[] = [
  openai,
  vllm,
  ollama,
  llamaCpp,
  lmStudio,
  openRouter,
  liteLlm,
  deepSeek,
  gemini,
  anthropic,
];

/** The profile with this name, or an error that lists the names. */
export function serverProfile(name: string): ServerProfile {
  const found = SERVER_PROFILES.find((profile) => profile.name === name);
  if (!found) {
    throw new ConfigurationError(`unknown server profile '${name}' (known: ${SERVER_PROFILES.map((profile) => profile.name).join(', ')})`, {
      code: 'INVALID_ARGUMENT',
    });
  }
  return found;
}
