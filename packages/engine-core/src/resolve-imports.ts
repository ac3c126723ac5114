import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { ConfigurationError, type ConfigurationErrorCode } from '@delta/errors';
import { describeFileKind, type ConfigProblem, type ParsedConfig } from '@delta/yaml-config';
import type { McpServerConfig } from '@delta/mcp';
import { ImportedToolsFile } from './agent-config.js';
import { isInsideBoundary, type ImportBoundary } from './import-boundary.js';
import { readConfigFile } from './read-config-file.js';

/** The tool definitions of one file, with what is needed to point at them in errors. */
export interface ToolSource {
  file: string;
  definitions: unknown[];
  /** Its `mcp_servers:`, validated. */
  mcpServers: McpServerConfig[];
  locate: ParsedConfig<unknown>['locate'];
}

export interface ResolvedImports {
  /** Imported files (real paths) in merge order: each file's own imports come before it. */
  sources: ToolSource[];
  warnings: ConfigProblem[];
}

interface ImportingFile {
  file: string;
  imports: readonly string[];
  locate: ParsedConfig<unknown>['locate'];
}

type Locate = ParsedConfig<unknown>['locate'];

/** How `mcp_servers:` is written, for errors about it. */
export const MCP_SERVERS_HINT =
  'mcp_servers is a list of MCP servers, each with a name and a command (stdio) or a url (Streamable HTTP), e.g.\nmcp_servers:\n  - name: files\n    command: npx\n    args: ["-y", "@modelcontextprotocol/server-filesystem", "${CWD}"]\n    tools: [read_text_file, list_directory]  # optional allow-list';

function at(file: string, locate: Locate, path: readonly PropertyKey[]): string {
  const position = locate(path);
  return position ? `${file}:${position.line}:${position.column}` : file;
}

function importError(
  from: ImportingFile,
  index: number,
  problem: string,
  hint: string,
  code: ConfigurationErrorCode = 'IMPORT_INVALID',
): ConfigurationError {
  const field = `imports[${index}]`;
  return new ConfigurationError(`${at(from.file, from.locate, ['imports', index])} ${field}: ${problem}`, {
    code,
    file: from.file,
    field,
    hint,
  });
}

/** Resolves one entry of `imports:` to a real path inside the boundary, or says exactly what is wrong. */
function resolveImportPath(from: ImportingFile, index: number, boundary: ImportBoundary): string {
  const written = from.imports[index]!;
  const base = dirname(from.file);
  const target = resolve(base, written);
  const relativeHint = `Paths in imports are relative to the file that lists them (${base}).`;
  if (!existsSync(target)) {
    return fail(
      importError(
        from,
        index,
        `"${written}" does not exist (looked for ${target})`,
        `Create the file or fix the path. ${relativeHint}`,
        'IMPORT_NOT_FOUND',
      ),
    );
  }
  const real = realpathSync(target);
  if (!isInsideBoundary(real, boundary)) {
    const via = real === target ? '' : ` (through a symlink, to ${real})`;
    return fail(
      importError(
        from,
        index,
        `"${written}" resolves to ${target}${via}, which is outside ${boundary.description}; importing it is refused`,
        'Move the file inside the agent directory, or keep the agent and its shared tools in one git repository and import from there.',
        'IMPORT_OUTSIDE_BOUNDARY',
      ),
    );
  }
  const stats = statSync(real);
  if (!stats.isFile()) {
    return fail(
      importError(
        from,
        index,
        `"${written}" is ${describeFileKind(stats)}, not a YAML file (${real})`,
        `Import a file that holds a tools: list. ${relativeHint}`,
      ),
    );
  }
  return real;
}

function fail(error: ConfigurationError): never {
  throw error;
}

function display(path: string, boundary: ImportBoundary): string {
  const path_ = relative(boundary.root, path);
  return path_ === '' ? path : path_;
}

/**
 * Follows `imports:` recursively (spec 000 section 2.7.4, resolution 12). Files are taken in the order
 * written, each one's own imports before its tools; a file reached twice by different paths (a diamond)
 * is read once, where it is first reached. A file that imports itself, directly or not, is an error
 * showing the whole cycle.
 */
export function resolveImports(main: ImportingFile, boundary: ImportBoundary): ResolvedImports {
  const sources: ToolSource[] = [];
  const warnings: ConfigProblem[] = [];
  const done = new Set<string>();

  const visit = (from: ImportingFile, chain: readonly string[]): void => {
    from.imports.forEach((_, index) => {
      const target = resolveImportPath(from, index, boundary);
      const start = chain.indexOf(target);
      if (start !== -1) {
        const cycle = [...chain.slice(start), target].map((file) => display(file, boundary)).join(' -> ');
        throw importError(
          from,
          index,
          `import cycle: ${cycle}`,
          'Remove one of these imports; a file may not import itself, directly or through other files.',
          'IMPORT_CYCLE',
        );
      }
      if (done.has(target)) return;
      const parsed = readConfigFile(target, ImportedToolsFile, {
        missingHint: 'An imported file holds a tools: list (and may import other files).',
        hintFor: (field) =>
          field.startsWith('tools') || field.startsWith('imports')
            ? 'An imported file looks like:\ntools:\n  - name: greet\n    exec: "echo ${text}"'
            : field.startsWith('mcp_servers')
              ? MCP_SERVERS_HINT
              : undefined,
      });
      warnings.push(...parsed.warnings);
      if (parsed.data.tools === undefined && parsed.data.imports === undefined && parsed.data.mcp_servers === undefined) {
        throw new ConfigurationError(`${target} tools: is required but missing (an imported file holds a tools: or mcp_servers: list)`, {
          code: 'IMPORT_INVALID',
          file: target,
          field: 'tools',
          hint: `Add a tools: (or mcp_servers:) list to ${target}, or remove it from ${from.file} imports[${index}].`,
        });
      }
      visit({ file: target, imports: parsed.data.imports ?? [], locate: parsed.locate }, [...chain, target]);
      done.add(target);
      sources.push({
        file: target,
        definitions: parsed.data.tools ?? [],
        mcpServers: parsed.data.mcp_servers ?? [],
        locate: parsed.locate,
      });
    });
  };

  visit(main, [realpathSync(main.file)]);
  return { sources, warnings };
}
