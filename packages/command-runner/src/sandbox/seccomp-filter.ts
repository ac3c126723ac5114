/**
 * The seccomp filter every sandboxed process runs under (bubblewrap's `--seccomp`). It refuses two things.
 *
 * - Making a file set-user-ID or set-group-ID. Without it a tool of an engine run by root, which owns what it
 *   creates even with no capability, could leave a set-user-ID-root program in the workspace for any user of
 *   the machine to run. Refused with EPERM: the chmod family, and creating a file (creat, open and openat with
 *   O_CREAT or O_TMPFILE, mknod) with either bit in its mode; openat2, whose mode the filter cannot read,
 *   fails with ENOSYS (programs fall back to openat).
 * - Reaching into another process: ptrace, process_vm_readv, process_vm_writev and pidfd_getfd, with EPERM.
 *   Every process of a run's sandbox has the same user, so without it a process a call left running (or
 *   another call) could take a later call's descriptors, memory or registers, and write its output or its
 *   exit code (see docs/security.md). /proc/<pid>/mem is read-only in there (bubblewrapSandboxArgs).
 *
 * 32-bit x86 calls are judged by their own numbers; x32 calls are refused. Other architectures are let
 * through unfiltered.
 *
 * A classic BPF program over `struct seccomp_data` (nr at 0, arch at 4, args at 16 + 8 * i, little-endian,
 * so an argument's low 32 bits are at that offset), as `seccomp_export_bpf` would write it.
 */
import { SystemError } from '@delta/errors';

const LOAD_WORD = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JUMP_IF_EQUAL = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JUMP_IF_AT_LEAST = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const JUMP_IF_ANY_BIT = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const RETURN = 0x06; // BPF_RET | BPF_K

const ALLOW = 0x7fff0000;
const ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

const ARCH_OFFSET = 4;
const argumentOffset = (index: number) => 16 + 8 * index;

const SET_ID_BITS = 0o6000;
const O_CREAT = 0o100;
const O_TMPFILE = 0o20000000;
const X32_SYSCALL_BIT = 0x40000000;

/** A call that can give a file a mode: where its mode is, and (open, openat) its flags, which say whether it creates. */
interface ModeCall {
  number: number;
  mode: number;
  flags?: number;
}

interface Architecture {
  audit: number;
  openat2: number;
  /** ptrace, process_vm_readv, process_vm_writev and pidfd_getfd: refused whatever their arguments. */
  refused: number[];
  calls: ModeCall[];
  refuseX32?: boolean;
}

const ARCHITECTURES: Architecture[] = [
  {
    // x86_64
    audit: 0xc000003e,
    openat2: 437,
    refused: [101, 310, 311, 438],
    refuseX32: true,
    calls: [
      { number: 90, mode: 1 }, // chmod
      { number: 91, mode: 1 }, // fchmod
      { number: 268, mode: 2 }, // fchmodat
      { number: 452, mode: 2 }, // fchmodat2
      { number: 85, mode: 1 }, // creat
      { number: 2, mode: 2, flags: 1 }, // open
      { number: 257, mode: 3, flags: 2 }, // openat
      { number: 133, mode: 1 }, // mknod
      { number: 259, mode: 2 }, // mknodat
    ],
  },
  {
    // i386, also as 32-bit programs on x86_64
    audit: 0x40000003,
    openat2: 437,
    refused: [26, 347, 348, 438],
    calls: [
      { number: 15, mode: 1 }, // chmod
      { number: 94, mode: 1 }, // fchmod
      { number: 306, mode: 2 }, // fchmodat
      { number: 452, mode: 2 }, // fchmodat2
      { number: 8, mode: 1 }, // creat
      { number: 5, mode: 2, flags: 1 }, // open
      { number: 295, mode: 3, flags: 2 }, // openat
      { number: 14, mode: 1 }, // mknod
      { number: 297, mode: 2 }, // mknodat
    ],
  },
  {
    // aarch64
    audit: 0xc00000b7,
    openat2: 437,
    refused: [117, 270, 271, 438],
    calls: [
      { number: 52, mode: 1 }, // fchmod
      { number: 53, mode: 2 }, // fchmodat
      { number: 452, mode: 2 }, // fchmodat2
      { number: 56, mode: 3, flags: 2 }, // openat
      { number: 33, mode: 2 }, // mknodat
    ],
  },
];

/** One instruction; a jump names its targets by label until `assemble` turns them into offsets. */
type Instruction = { code: number; k: number; ifTrue?: string; ifFalse?: string } | { label: string };

function assemble(program: Instruction[]): Buffer {
  const positions = new Map<string, number>();
  const code: Array<{ code: number; k: number; ifTrue?: string; ifFalse?: string }> = [];
  for (const instruction of program) {
    if ('label' in instruction) positions.set(instruction.label, code.length);
    else code.push(instruction);
  }
  const buffer = Buffer.alloc(code.length * 8);
  code.forEach((instruction, index) => {
    const offset = (label: string | undefined) => {
      if (label === undefined) return 0;
      const distance = positions.get(label)! - (index + 1);
      if (distance < 0 || distance > 255) {
        throw new SystemError(`The sandbox's seccomp filter cannot be built: the jump to ${label} does not fit in one byte.`, {
          code: 'INTERNAL',
        });
      }
      return distance;
    };
    buffer.writeUInt16LE(instruction.code, index * 8);
    buffer.writeUInt8(offset(instruction.ifTrue), index * 8 + 2);
    buffer.writeUInt8(offset(instruction.ifFalse), index * 8 + 3);
    buffer.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return buffer;
}

function architectureProgram(architecture: Architecture, name: string): Instruction[] {
  const program: Instruction[] = [{ label: name }, { code: LOAD_WORD, k: 0 }];
  if (architecture.refuseX32) program.push({ code: JUMP_IF_AT_LEAST, k: X32_SYSCALL_BIT, ifTrue: 'no-such-call' });
  program.push({ code: JUMP_IF_EQUAL, k: architecture.openat2, ifTrue: 'no-such-call' });
  for (const number of architecture.refused) program.push({ code: JUMP_IF_EQUAL, k: number, ifTrue: 'not-permitted' });
  architecture.calls.forEach((call, index) => {
    program.push({ code: JUMP_IF_EQUAL, k: call.number, ifTrue: `${name}-${index}` });
  });
  program.push({ code: RETURN, k: ALLOW });
  architecture.calls.forEach((call, index) => {
    program.push({ label: `${name}-${index}` });
    if (call.flags !== undefined) {
      program.push({ code: LOAD_WORD, k: argumentOffset(call.flags) });
      program.push({ code: JUMP_IF_ANY_BIT, k: O_CREAT | O_TMPFILE, ifFalse: 'allow' });
    }
    program.push({ code: LOAD_WORD, k: argumentOffset(call.mode) });
    program.push({ code: JUMP_IF_ANY_BIT, k: SET_ID_BITS, ifTrue: 'not-permitted', ifFalse: 'allow' });
  });
  return program;
}

/** The filter, compiled: the bytes bubblewrap reads from its `--seccomp` file descriptor. */
export function sandboxSeccompFilter(): Buffer {
  const program: Instruction[] = [{ code: LOAD_WORD, k: ARCH_OFFSET }];
  ARCHITECTURES.forEach((architecture, index) => {
    program.push({ code: JUMP_IF_EQUAL, k: architecture.audit, ifTrue: `arch-${index}` });
  });
  // Another architecture: not judged.
  program.push({ code: RETURN, k: ALLOW });
  ARCHITECTURES.forEach((architecture, index) => {
    program.push(...architectureProgram(architecture, `arch-${index}`));
  });
  // BPF jumps only forward: the shared ends come last.
  program.push({ label: 'allow' }, { code: RETURN, k: ALLOW });
  program.push({ label: 'not-permitted' }, { code: RETURN, k: ERRNO | EPERM });
  program.push({ label: 'no-such-call' }, { code: RETURN, k: ERRNO | ENOSYS });
  return assemble(program);
}
