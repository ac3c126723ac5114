import { ConfigurationError } from '@delta/errors';
import type { McpServerEntry } from '@delta/mcp';
import type { ToolSource } from './resolve-imports.js';

/**
 * The MCP servers of every source, merged as tools are: in order, a later server of a name replaces an
 * earlier one (the agent's own file comes last); within one file a name must be unique.
 */
export function mergeMcpServers(sources: readonly ToolSource[]): McpServerEntry[] {
  const merged = new Map<string, McpServerEntry>();
  for (const source of sources) {
    const inThisFile = new Map<string, number>();
    source.mcpServers.forEach((config, index) => {
      const earlier = inThisFile.get(config.name);
      if (earlier !== undefined) {
        const field = `mcp_servers[${index}].name`;
        const position = source.locate(['mcp_servers', index, 'name']);
        const where = position ? `${source.file}:${position.line}:${position.column}` : source.file;
        throw new ConfigurationError(
          `${where} ${field}: "${config.name}" is already the name of mcp_servers[${earlier}] of the same file`,
          {
            code: 'CONFIG_INVALID',
            file: source.file,
            field,
            hint: 'Server names must be unique within a file; rename one (a server may replace one of an imported file).',
          },
        );
      }
      inThisFile.set(config.name, index);
      // Deleted first, so that the merged order is that of the last definitions.
      merged.delete(config.name);
      merged.set(config.name, { config, file: source.file, field: `mcp_servers[${index}]` });
    });
  }
  return [...merged.values()];
}
