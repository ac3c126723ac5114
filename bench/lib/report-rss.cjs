// Preloaded into a measured Node process (node --require): at exit, writes its peak resident set size
// in KiB and its CPU time (user + system, in ms) to the file named by BENCH_RSS_FILE.
//
// The peak is VmHWM from /proc/self/status where there is one: the high-water mark of this program's
// own memory since it started. process.resourceUsage().maxRSS (getrusage) is not that on Linux: it keeps
// the high-water mark of the process from before its exec, and a child forked from the bench starts as
// a copy of the bench (which holds every request of a 2,000-iteration run), so it would report the
// bench's size rather than the engine's.
const { readFileSync, writeFileSync } = require('node:fs');
const target = process.env.BENCH_RSS_FILE;

function peakKiB() {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]);
  } catch {
    // No /proc: fall back to getrusage.
  }
  return process.resourceUsage().maxRSS;
}

if (target) {
  delete process.env.BENCH_RSS_FILE;
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(target, `${peakKiB()} ${(usage.userCPUTime + usage.systemCPUTime) / 1000}\n`);
  });
}
