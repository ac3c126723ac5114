// The tool launcher's program, bundled next to cli.js and its chunks: the inlined @delta/command-runner
// code looks for launcher-process.js beside itself.
import '@delta/command-runner/launcher-process';
