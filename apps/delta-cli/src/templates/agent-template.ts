/** A built-in `delta init` template (spec 003 section 5.2). */
export interface AgentTemplate {
  name: string;
  description: string;
  /** agent.yaml for an agent of the given name. */
  agentYaml(agentName: string): string;
  systemPrompt: string;
}

/** The agent's name as a YAML scalar: plain when safe, quoted otherwise. */
export function yamlName(agentName: string): string {
  return /^[A-Za-z][A-Za-z0-9_.-]*$/.test(agentName) ? agentName : JSON.stringify(agentName);
}
