// The memory of a process tree, as issue 34 counts it: the sum over every process of the tree of its
// anonymous memory (heaps, stacks, what is its own), plus ONE copy of each distinct binary's file-backed
// resident pages (of the largest process per executable, told apart by the executable's device and inode:
// node, bwrap, bash each count once, however many processes run them). Sampled every ~200 ms, from a
// worker thread so that the samples do not hold up the event loop of the bench (where the fake model
// answers); the peak is reported.
//
// The figures are the kernel's counters in /proc/<pid>/status (`RssAnon:`, and `RssFile:` + `RssShmem:`
// for the file-backed pages), not the page walk of /proc/<pid>/smaps_rollup (`Anonymous:`), which gives
// the same anonymous figure (8424 kB there, 8428 kB here, for one Node process) but costs about 7 ms per
// Node process on a loaded 2-core machine: with a thousand processes in the tree a sample would take
// seconds of CPU, and the bench would measure its own sampler.
//
// The tree is found from every process's parent (/proc/*/stat, read by @delta/process-identity's
// readProcessStat, as `delta batch`'s own live line does), so processes inside a bubblewrap (a pid
// namespace of their own) count too.
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { readProcessStat } from '../../packages/process-identity/dist/index.js';

/** `root` and every process below it, now. */
function treePids(root) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcessStat(entry);
    if (stat === undefined) continue;
    const siblings = children.get(stat.parentPid);
    if (siblings) siblings.push(Number(entry));
    else children.set(stat.parentPid, [Number(entry)]);
  }
  const pids = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop();
    pids.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return pids;
}

/** One sample: the tree's memory in bytes as counted above, and its number of processes. */
export function sampleTreeMemory(root) {
  let anonymousKiB = 0;
  let processes = 0;
  const fileKiB = new Map();
  for (const pid of treePids(root)) {
    let status;
    let binary;
    try {
      status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const { dev, ino } = statSync(`/proc/${pid}/exe`);
      binary = `${dev}:${ino}`;
    } catch {
      continue; // Gone, or a zombie (no memory left, no executable).
    }
    const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? Number.NaN);
    const anonymous = kib('RssAnon');
    const file = kib('RssFile') + kib('RssShmem');
    if (Number.isNaN(anonymous) || Number.isNaN(file)) continue;
    processes += 1;
    anonymousKiB += anonymous;
    const known = fileKiB.get(binary);
    if (known === undefined || file > known.kib) fileKiB.set(binary, { kib: file, pid });
  }
  const binaries = [...fileKiB.values()].map(({ kib, pid }) => ({ kib, name: nameOf(pid) }));
  const binaryKiB = binaries.reduce((sum, binary) => sum + binary.kib, 0);
  return {
    bytes: (anonymousKiB + binaryKiB) * 1024,
    anonymousBytes: anonymousKiB * 1024,
    binaryBytes: binaryKiB * 1024,
    processes,
    binaries,
  };
}

function nameOf(pid) {
  try {
    return readlinkSync(`/proc/${pid}/exe`).split('/').at(-1);
  } catch {
    return '?';
  }
}

/** This thread's CPU time (user + system, ms): utime and stime of /proc/thread-self/stat, in ticks of 10 ms. */
function threadCpuMs() {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Samples the tree of `pid` every `intervalMs` (after the previous sample ended) until `stop()`, which
 * resolves with the peak sample (bytes, anonymousBytes, binaryBytes, processes, binaries), the largest
 * number of processes seen, how many samples were taken, what one took (wall ms) and the CPU time the
 * sampling took in all (ms): it runs on the machine beside the engine it measures, so it is printed.
 */
export function watchTreeMemory(pid, intervalMs = 200) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { pid, intervalMs } });
  const done = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const result = await done;
      await worker.terminate();
      return result;
    },
  };
}

if (!isMainThread && workerData?.intervalMs) {
  const { pid, intervalMs } = workerData;
  let peak;
  let mostProcesses = 0;
  let samples = 0;
  let sampleMs = 0;
  let stopping = false;
  let timer;
  const cpuStart = threadCpuMs();
  const finish = () =>
    parentPort.postMessage({
      peak,
      mostProcesses,
      samples,
      meanSampleMs: samples ? sampleMs / samples : 0,
      cpuMs: threadCpuMs() - cpuStart,
    });
  const tick = () => {
    if (stopping) return;
    const started = performance.now();
    const sample = sampleTreeMemory(pid);
    sampleMs += performance.now() - started;
    samples += 1;
    if (sample.processes > 0 && (peak === undefined || sample.bytes > peak.bytes)) peak = sample;
    mostProcesses = Math.max(mostProcesses, sample.processes);
    timer = setTimeout(tick, intervalMs);
  };
  parentPort.on('message', () => {
    stopping = true;
    clearTimeout(timer);
    finish();
  });
  tick();
}
