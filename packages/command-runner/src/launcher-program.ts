import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SystemError } from '@delta/errors';

/**
 * The launcher's program, launcher-process.js, sits next to this module: in src/ (tests), in the
 * package's dist/, and next to the chunks of a bundle that inlines this package (the delta CLI builds it
 * as a second entry). Missing, it is a packaging fault, said as such rather than hidden by a fallback.
 */
export function launcherProgramPath(): string {
  const path = fileURLToPath(new URL('./launcher-process.js', import.meta.url));
  if (!existsSync(path)) {
    throw new SystemError(`The tool launcher's program is missing: expected ${path}.`, {
      code: 'INTERNAL',
      file: path,
      hint: 'Rebuild the package that bundles @delta/command-runner (it must emit launcher-process.js next to its chunks).',
    });
  }
  return path;
}

/** The arguments of `node` that run the launcher's program. */
export function launcherArgs(): string[] {
  return ['--max-semi-space-size=1', launcherProgramPath()];
}
