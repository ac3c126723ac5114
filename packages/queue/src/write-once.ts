import { linkSync, rmSync, writeFileSync } from 'node:fs';
import { diskWrite } from '@delta/errors';

/**
 * Writes `text` to `file` only if no file is there yet, whole or not at all: written beside it, then linked
 * into place (a link never replaces what another process put there first). The caller reads what is there.
 */
export function writeFileOnce(file: string, text: string, mode = 0o644): void {
  const temporary = `${file}.${process.pid}.tmp`;
  diskWrite(file, () => {
    writeFileSync(temporary, text, { mode, flag: 'wx' });
    try {
      linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(temporary, { force: true });
    }
  });
}
