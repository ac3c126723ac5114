import { ConfigurationError } from '@delta/errors';
import { type BatchDefinition, readBatchDefinition } from './batch-definition.js';
import { batchDefinitionFile } from './batch-layout.js';

/** The definition of the batch in OUT; a directory that holds none is a usage error naming the file. */
export function readBatchOrFail(out: string): BatchDefinition {
  const definition = readBatchDefinition(out);
  if (definition === undefined) {
    throw new ConfigurationError(`${out} holds no batch (${batchDefinitionFile(out)} does not exist).`, {
      code: 'USAGE',
      hint: 'Pass the --out directory of a `delta batch` command.',
    });
  }
  return definition;
}
