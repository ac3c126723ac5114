import { ConfigurationError } from '@delta/errors';
import { readUntrustedFile } from '@delta/untrusted-file';
import { substituteEngineVariables, type ComputedFileSource, type FileSource } from '../manifest.js';
import { sourceId, type SourceContext } from './source-context.js';

/** A file's text, read for a block, with the path it came from (named in cut markers). */
export interface BlockText {
  path: string;
  text: string;
}

/** The largest context file read; a larger one is left out with a note (the budgets cut what is read). */
export const CONTEXT_FILE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Reads the file of a `file` source, or the output of a `computed_file` source. A missing file is
 * undefined with `on_missing: skip`, and an error naming the field and the fix otherwise.
 *
 * Tools can write these files (`${CWD}/DELTA.md`), so they are read as hostile input: a file that is not a
 * regular file, leads through a link out of the workspace and the agent directory, or is too large is left
 * out, and the block says so instead (and `onNotice` is told). A run goes on: a hostile file must not be
 * able to stop every later run, nor to put the engine's environment or a host file in front of the model.
 */
export function readSourceFile(source: FileSource | ComputedFileSource, index: number, context: SourceContext): BlockText | undefined {
  const field = source.type === 'file' ? 'path' : 'output_path';
  const path = substituteEngineVariables(source.type === 'file' ? source.path : source.output_path, context);
  const read = readUntrustedFile(path, { allowedRoots: [context.cwd, context.agentHome], maxBytes: CONTEXT_FILE_MAX_BYTES });
  if (read.kind === 'file') return { path, text: read.bytes.toString('utf8') };
  if (read.kind === 'refused') {
    const notice = `context source "${sourceId(source, index)}" (${source.type}) was left out: ${read.message}`;
    context.onNotice?.(notice);
    return {
      path,
      text: `[Not included: ${read.message}. The engine reads context files only as regular files inside the workspace or the agent directory.]`,
    };
  }
  if (source.on_missing === 'skip') return undefined;
  throw new ConfigurationError(`context source "${sourceId(source, index)}" (${source.type}): ${path} does not exist`, {
    code: 'CONTEXT_SOURCE_MISSING',
    file: context.manifestFile,
    field: `sources[${index}].${field}`,
    hint:
      source.type === 'file'
        ? 'Create the file, fix the path, or add `on_missing: skip` to the source.'
        : 'The generator must write its output to output_path (creating its directory); or add `on_missing: skip`.',
  });
}
