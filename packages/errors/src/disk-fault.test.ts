import { describe, expect, it } from 'vitest';
import { asDiskFault, ConfigurationError, DeltaError, diskWrite } from './index.js';

/** An error as Node's fs gives it: a message, an errno code and the syscall (a write to a descriptor names no path). */
function errno(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}, write`), { code, errno: -1, syscall: 'write' });
}

describe('asDiskFault', () => {
  it('names the file, the cause and the fix for a full, read-only or immutable disk', () => {
    const file = '/work/ws/.delta/20260101_000000_aaaaaa/journal.jsonl';
    const cases = [
      ['ENOSPC', 'DISK_FULL', 'no space left on device', 'df -h /work/ws/.delta/20260101_000000_aaaaaa'],
      ['EDQUOT', 'DISK_FULL', 'no space left in the disk quota', 'quota'],
      ['EROFS', 'DISK_READ_ONLY', 'read-only file system', 'mount -o remount,rw'],
      ['EPERM', 'DISK_NOT_PERMITTED', 'operation not permitted', `chattr -i ${file}`],
      ['EACCES', 'DISK_NOT_PERMITTED', 'permission denied', `ls -ld ${file}`],
    ] as const;
    for (const [code, deltaCode, cause, hint] of cases) {
      const original = errno(code, cause);
      const fault = asDiskFault(original, file);
      expect(DeltaError.isInstance(fault)).toBe(true);
      expect(fault).toMatchObject({ code: deltaCode, kind: 'system', file, cause: original });
      expect((fault as DeltaError).message).toBe(`Cannot write ${file}: ${cause} (${code}).`);
      expect((fault as DeltaError).hint).toContain(hint);
    }
  });

  it('leaves every other error as it is, DeltaErrors included', () => {
    const other = errno('ENOENT', 'no such file or directory');
    expect(asDiskFault(other, '/x')).toBe(other);
    const named = new ConfigurationError('bad', { code: 'CONFIG_INVALID' });
    expect(asDiskFault(named, '/x')).toBe(named);
    expect(asDiskFault('text', '/x')).toBe('text');
    expect(asDiskFault(undefined, '/x')).toBe(undefined);
  });

  it('diskWrite returns what the write returns, and throws what it throws, named', () => {
    expect(diskWrite('/x', () => 7)).toBe(7);
    expect(() =>
      diskWrite('/x/y', () => {
        throw errno('EROFS', 'read-only file system');
      }),
    ).toThrow('Cannot write /x/y: read-only file system (EROFS).');
  });
});
