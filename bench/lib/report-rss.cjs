// Preloaded into a measured Node process (node --require): at exit, writes its peak resident set size
// (process.resourceUsage().maxRSS, in KiB) and its CPU time (user + system, in ms) to the file named by
// BENCH_RSS_FILE.
const { writeFileSync } = require('node:fs');
const target = process.env.BENCH_RSS_FILE;
if (target) {
  delete process.env.BENCH_RSS_FILE;
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(target, `${usage.maxRSS} ${(usage.userCPUTime + usage.systemCPUTime) / 1000}\n`);
  });
}
