import { existsSync, readFileSync, statSync } from 'node:fs';
import { ConfigurationError } from '@delta/errors';
import { substituteEngineVariables, type ComputedFileSource, type FileSource } from '../manifest.js';
import { sourceId, type SourceContext } from './source-context.js';

/** A file's text, read for a block, with the path it came from (named in cut markers). */
export interface BlockText {
  path: string;
  text: string;
}

/**
 * Reads the file of a `file` source, or the output of a `computed_file` source. A missing file is
 * undefined with `on_missing: skip`, and an error naming the field and the fix otherwise.
 */
export function readSourceFile(source: FileSource | ComputedFileSource, index: number, context: SourceContext): BlockText | undefined {
  const field = source.type === 'file' ? 'path' : 'output_path';
  const path = substituteEngineVariables(source.type === 'file' ? source.path : source.output_path, context);
  const found = existsSync(path) && statSync(path).isFile();
  if (found) return { path, text: readFileSync(path, 'utf8') };
  if (source.on_missing === 'skip') return undefined;
  const what = existsSync(path) ? 'is not a file' : 'does not exist';
  throw new ConfigurationError(`context source "${sourceId(source, index)}" (${source.type}): ${path} ${what}`, {
    code: 'CONTEXT_SOURCE_MISSING',
    file: context.manifestFile,
    field: `sources[${index}].${field}`,
    hint:
      source.type === 'file'
        ? 'Create the file, fix the path, or add `on_missing: skip` to the source.'
        : 'The generator must write its output to output_path (creating its directory); or add `on_missing: skip`.',
  });
}
