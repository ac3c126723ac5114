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
 * assistant messages are found as the conversation fold made them (the same frozen objects); a message
 * the context builder cut to fit a budget is a new one, sent as cut, without its reasoning.
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
  const byMessage = new Map<object, ThoughtEvent>();
  for (const turn of conversation.turns) {
    const thought = turn.iteration === undefined ? undefined : thoughts.get(turn.iteration);
    if (!thought) continue;
    for (let index = turn.start; index < turn.end; index += 1) {
      if (conversation.messages[index]!.role !== 'assistant') continue;
      byMessage.set(conversation.messages[index]!, thought);
      break;
    }
  }
  const messages = [...built.messages];
  const json = [...built.json];
  for (let index = 0; index < messages.length; index += 1) {
    const thought = byMessage.get(messages[index]!);
    if (!thought) continue;
    const message = withReasoning(messages[index]!, thought);
    messages[index] = message as (typeof messages)[number];
    // A large one is left for the body builder to write a piece at a time.
    json[index] = json[index] === undefined ? undefined : JSON.stringify(message);
  }
  return { messages, json };
}
