// Preloaded into a measured Node process (node --require): at exit, writes its peak resident set size
// in KiB, its CPU time (user + system, in ms) and that of its children it has collected (its tool
// launcher and what that started, or the tools themselves), to the file named by BENCH_RSS_FILE.
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

/** cutime + cstime from /proc/self/stat (fields 16 and 17, in clock ticks, 100 a second on Linux), in ms. */
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

if (target) {
  delete process.env.BENCH_RSS_FILE;
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(target, `${peakKiB()} ${(usage.userCPUTime + usage.systemCPUTime) / 1000} ${childrenCpuMs()}\n`);
  });
}
