import type { ContextMessages } from '@delta/context-builder';
import { conversationOf, type RunState, type ThoughtEvent } from '@delta/journal';

/** The assistant message of a THOUGHT with its reasoning, under the name the server used for it. */
function withReasoning(message: object, thought: ThoughtEvent): object {
  return {
    ...message,
    [thought.reasoning_field ?? 'reasoning_content']: thought.reasoning,
    ...(thought.reasoning_details !== undefined ? { reasoning_details: thought.reasoning_details } : {}),
  };
}

/**
 * `llm.send_reasoning: true`: each assistant message of the built context whose THOUGHT had reasoning
 * gets it back (interleaved-thinking models want it; DeepSeek refuses it, hence off by default). The
 * assistant messages are found by their JSON text, as the conversation fold made it; a message the
 * context builder cut to fit a budget is sent as cut, without its reasoning.
 */
export function sendReasoningBack(built: ContextMessages, state: RunState): ContextMessages {
  const conversation = conversationOf(state);
  const thoughts = new Map<number, ThoughtEvent>();
  for (const event of state.events) {
    if (event.type === 'THOUGHT' && (event.reasoning !== undefined || event.reasoning_details !== undefined)) {
      thoughts.set(event.iteration, event);
    }
  }
  if (thoughts.size === 0) return built;
  const byJson = new Map<string, ThoughtEvent>();
  for (const turn of conversation.turns) {
    const thought = turn.iteration === undefined ? undefined : thoughts.get(turn.iteration);
    if (!thought) continue;
    for (let index = turn.start; index < turn.end; index += 1) {
      if (conversation.messages[index]!.role !== 'assistant') continue;
      byJson.set(conversation.json[index]!, thought);
      break;
    }
  }
  const messages = [...built.messages];
  const json = [...built.json];
  for (let index = 0; index < json.length; index += 1) {
    const thought = byJson.get(json[index]!);
    if (!thought) continue;
    const message = withReasoning(messages[index]!, thought);
    messages[index] = message as (typeof messages)[number];
    json[index] = JSON.stringify(message);
  }
  return { messages, json };
}
