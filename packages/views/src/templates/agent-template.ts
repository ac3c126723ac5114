/** A built-in `delta init` template (spec 003 section 5.2). */
export interface AgentTemplate {
  name: string;
  description: string;
  /** agent.yaml for an agent of the given name. */
  agentYaml(agentName: string): string;
  systemPrompt: string;
}

/** The agent's name as a YAML scalar: plain when safe, quoted otherwise. */
function yamlName(agentName: string): string {
  return /^[A-Za-z][A-Za-z0-9_.-]*$/.test(agentName) ? agentName : JSON.stringify(agentName);
}

/** The start of agent.yaml, the same in every template but for its description and temperature; the template's tools follow it. */
export function agentYamlStart(agentName: string, description: string, temperature: number): string {
  return `name: ${yamlName(agentName)}
version: 1.0.0
description: ${description}

llm:
  model: gpt-4o-mini
  temperature: ${temperature}

system_prompt: system_prompt.md

tools:`;
}
