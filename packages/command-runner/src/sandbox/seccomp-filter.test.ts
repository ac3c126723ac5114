import { describe, expect, it } from 'vitest';
import { sandboxSeccompFilter } from './seccomp-filter.js';

describe('sandboxSeccompFilter', () => {
  it('is a whole classic BPF program whose every jump lands inside it and which ends in a return', () => {
    const program = sandboxSeccompFilter();
    expect(program.length % 8).toBe(0);
    const count = program.length / 8;
    for (let index = 0; index < count; index += 1) {
      const code = program.readUInt16LE(index * 8);
      if ((code & 0x07) === 0x05) {
        // A jump: both targets within the program.
        expect(index + 1 + program.readUInt8(index * 8 + 2)).toBeLessThan(count);
        expect(index + 1 + program.readUInt8(index * 8 + 3)).toBeLessThan(count);
      }
    }
    expect(program.readUInt16LE((count - 1) * 8)).toBe(0x06);
  });
});
