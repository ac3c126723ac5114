/**
 * Node ends a process once nothing is left for it to wait for (no timer, socket or child process it
 * counts), even while a promise of ours is still pending, and then with exit code 0. A command cut short
 * that way would look like a success that printed nothing: `delta replay` once did, when its sandbox let go
 * of the process in the middle of being stopped. This turns such an end into an error, exit code 1.
 */
export function failIfEndedUnfinished(command: () => string | undefined, write: (text: string) => void): () => void {
  const onBeforeExit = () => {
    process.off('beforeExit', onBeforeExit);
    const name = command();
    write(
      `Error: delta ended before ${name ? `\`delta ${name}\`` : 'the command'} had finished: nothing was left to wait for. This is a bug in delta.\n` +
        'Hint: what the run recorded is in its journal (`delta log`); please report this with `delta --version` and the command line.\n',
    );
    process.exitCode = 1;
  };
  process.on('beforeExit', onBeforeExit);
  return () => process.off('beforeExit', onBeforeExit);
}
