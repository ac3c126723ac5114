import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CommandResult,
  probeBubblewrap,
  removeLayer,
  RunSandbox,
  runCommand,
  type SandboxLimits,
  type SandboxPolicy,
} from '@delta/command-runner';
import { defaultImageCache } from '@delta/engine';
import { ConfigurationError } from '@delta/errors';
import { readUntrustedFile } from '@delta/untrusted-file';

/** The image a run ran in, as its ENGINE_START recorded it (`sandbox.image`). */
export interface RunImage {
  reference: string;
  digest: string;
  workdir: string;
  user?: string;
}

/** Where a grader runs: on this machine, in the run's workspace; or, for a run in an image, in the run's final environment. */
export interface GraderPlace {
  /** The run's image, its layer (`.delta/<run>/layer`), the task's verifier files, the cache of unpacked images. */
  image?: {
    record: RunImage;
    runLayer: string;
    tests?: string;
    imageCache?: string;
    limits?: SandboxLimits;
    env?: Record<string, string>;
    /** The run's network (its tools'): on when not given. */
    network?: boolean;
  };
  /** A run without an image whose tools were sandboxed: the grader runs in this sandbox (the run's; see workspaceSandbox). */
  sandbox?: SandboxPolicy;
  /** The grader's records: stdout.log and stderr.log, and, in an image, `logs/` (its /logs/verifier). */
  recordDir: string;
}

export interface GraderOutput {
  result: CommandResult;
  /**
   * The text of /logs/verifier/reward.json or reward.txt (Harbor's verdict), when the grader wrote one; or
   * why it was not read (`refused`: a link out of the grader's logs, a FIFO, a device, over 64 KiB).
   */
  reward?: { file: 'reward.txt' | 'reward.json'; text: string; refused?: string };
  /** Where its output is kept. */
  records: { stdout: string; stderr: string; logs?: string };
}

/** The largest reward file read: a number, or a small JSON object. */
const MAX_REWARD_BYTES = 64 * 1024;

/**
 * Harbor's verdict in the grader's `logs` (its /logs/verifier). The grader ran in the run's final
 * environment, whose programs the run's tools could have replaced: the file is hostile input, read as
 * `@delta/untrusted-file` reads one (a regular file, never through a link out of `logs`, never blocking,
 * bounded), and a refused one is the verdict's error, never a file of this machine read in its place.
 */
function readReward(logs: string): GraderOutput['reward'] {
  for (const file of ['reward.json', 'reward.txt'] as const) {
    const found = readUntrustedFile(join(logs, file), { allowedRoots: [logs], maxBytes: MAX_REWARD_BYTES });
    if (found.kind === 'file') return { file, text: found.bytes.toString('utf8') };
    if (found.kind === 'refused') return { file, text: '', refused: found.reason };
  }
  return undefined;
}

/** This machine's bubblewrap, or a configuration error: `what` (the grader's place), and why there is none. */
function bubblewrapFor(what: string): string {
  const probe = probeBubblewrap();
  if (probe.ok) return probe.path;
  throw new ConfigurationError(`${what}, and ${probe.problem}.`, {
    code: 'SANDBOX_UNAVAILABLE',
    hint: 'Install bubblewrap (sudo apt-get install bubblewrap).',
  });
}

/**
 * Runs a command grader (`sh -c COMMAND`) and keeps its output with the grade (`recordDir`). For a run in an
 * image it runs where the agent worked: the image, under the run's layer (read only: a layer of the
 * grader's own takes its writes, so the run stays as it ended), in the run's workdir, sandboxed as the tools
 * were; the task's verifier files (`tests`) are a fresh copy at /tests and /logs/verifier an empty directory,
 * so whatever the agent left at either is gone. Otherwise it runs on this machine, in the run's workspace:
 * in the run's sandbox (`place.sandbox`) when its tools had one. The grader is the researcher's code, but
 * what it runs (the workspace's tests, a module it imports) is the model's, which must not reach this
 * machine's files or rewrite `.delta/` (an endpoint a later `delta continue` would send the key to).
 */
export async function runCommandGrader(
  command: string,
  options: { cwd: string; env: Record<string, string>; timeoutMs: number; input: string; place: GraderPlace },
): Promise<GraderOutput> {
  const { recordDir } = options.place;
  rmSync(recordDir, { recursive: true, force: true });
  mkdirSync(recordDir, { recursive: true });
  const records = { stdout: join(recordDir, 'stdout.log'), stderr: join(recordDir, 'stderr.log') };
  const image = options.place.image;
  if (image === undefined) {
    const policy = options.place.sandbox;
    const sandbox =
      policy === undefined
        ? undefined
        : RunSandbox.start(policy, bubblewrapFor(`The run's tools ran in the sandbox (${policy.mode}), so its grader does too`));
    try {
      const result = await runCommand({
        file: '/bin/sh',
        args: ['-c', command],
        cwd: options.cwd,
        env: options.env,
        timeoutMs: options.timeoutMs,
        stdoutFile: records.stdout,
        stderrFile: records.stderr,
        ...(sandbox ? { sandbox } : {}),
      });
      return { result, records };
    } finally {
      await sandbox?.stop();
    }
  }
  const bubblewrap = bubblewrapFor(`The grader of a run in the image ${image.record.reference} runs in that image, in the sandbox`);
  const images = await import('@delta/images');
  const cacheDir = image.imageCache ?? defaultImageCache();
  const resolved = images.findImage(cacheDir, image.record.digest) ?? (await images.resolveImage(image.record.reference, { cacheDir }));
  if (resolved.digest !== image.record.digest) {
    throw new ConfigurationError(
      `The run used the image ${image.record.reference} at ${image.record.digest}; it is ${resolved.digest} now, and the grader must run in the run's own.`,
      {
        code: 'IMAGE_DIGEST_MISMATCH',
        hint: 'Keep the image the run used (its layout or archive, or a registry reference by digest).',
      },
    );
  }
  const unpacked = await images.unpackImage(resolved, { cacheDir });
  const release = images.useImageRoot(cacheDir, unpacked.chainId);
  const logs = join(recordDir, 'logs');
  const tests = join(recordDir, 'tests');
  mkdirSync(logs, { recursive: true });
  if (image.tests !== undefined) cpSync(image.tests, tests, { recursive: true });
  else mkdirSync(tests);
  const [uid, gid] = (image.record.user ?? '0:0').split(':').map(Number);
  const sandbox = RunSandbox.start(
    {
      mode: 'read-only',
      network: image.network ?? true,
      workspace: options.cwd,
      protectedPaths: [join(options.cwd, '.delta')],
      visiblePaths: [],
      writablePaths: [],
      image: {
        root: unpacked.root,
        layer: join(recordDir, 'layer'),
        lowers: existsSync(join(image.runLayer, 'upper')) ? [join(image.runLayer, 'upper')] : [],
        workdir: image.record.workdir,
        uid: uid ?? 0,
        gid: gid ?? 0,
        mounts: [
          { source: tests, target: '/tests', writable: true },
          { source: logs, target: '/logs/verifier', writable: true },
        ],
      },
      ...(image.limits ? { limits: image.limits } : {}),
    },
    bubblewrap,
  );
  try {
    // The grader's input, where it can read it: its private /tmp.
    writeFileSync(join(sandbox.tmpDir, 'grade-input.json'), readFileSync(options.input));
    // The image's environment (its PATH and HOME, not this machine's), then the task's verifier variables.
    const { PATH: _path, HOME: _home, ...rest } = options.env;
    const env = {
      ...rest,
      HOME: '/root',
      ...resolved.config.env,
      ...image.env,
      DELTA_GRADE_INPUT: '/tmp/grade-input.json',
      DELTA_WORK_DIR: image.record.workdir,
    };
    const result = await runCommand({
      file: '/bin/sh',
      args: ['-c', command],
      cwd: options.cwd,
      env,
      timeoutMs: options.timeoutMs,
      stdoutFile: records.stdout,
      stderrFile: records.stderr,
      sandbox,
    });
    const reward = readReward(logs);
    return { result, records: { ...records, logs }, ...(reward ? { reward } : {}) };
  } finally {
    await sandbox.stop();
    release();
    // The grader's own layer: what it wrote in the image, not kept (its output and logs are).
    removeLayer(join(recordDir, 'layer'));
  }
}
