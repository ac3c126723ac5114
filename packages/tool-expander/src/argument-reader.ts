import { programName } from './option-danger.js';

/** Programs that run a script named by their first non-option argument and hand it the words after it. */
const INTERPRETERS = new Set([
  'python',
  'python2',
  'python3',
  'node',
  'ruby',
  'perl',
  'php',
  'lua',
  'Rscript',
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
]);

/** Interpreter options whose next word is what runs: inline code (`-c`, `-e`) or a module (`-m`). */
const RUNS_NEXT_WORD = new Set(['-c', '-e', '-m', '--eval', '-p', '--print']);

/** Who reads the words after a command's program: the program itself, or the script an interpreter runs. */
export interface ArgumentReader {
  /** The index of the script (or inline code, or module) in the command; undefined when the program reads its words itself. */
  script?: number;
  /** The reader's name for messages: `find`, `script.py`, or `python3 -c` for inline code. */
  program: string;
}

/**
 * `python3 script.py ${x}`: ${x} is the script's argument, not python3's, so it is script.py that may take it
 * for an option, and a `--` only guards it when it comes after the script. The words up to the script are
 * the interpreter's (its options, the script itself).
 */
export function argumentReader(words: readonly string[]): ArgumentReader {
  const interpreter = programName(words[0] ?? '');
  if (!INTERPRETERS.has(interpreter)) return { program: interpreter };
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index] as string;
    if (word === '--') return scriptAt(words, index + 1, interpreter);
    if (RUNS_NEXT_WORD.has(word)) {
      if (index + 1 >= words.length) return { program: interpreter };
      return { script: index + 1, program: word === '-m' ? (words[index + 1] as string) : `${interpreter} ${word}` };
    }
    if (!word.startsWith('-')) return scriptAt(words, index, interpreter);
  }
  return { program: interpreter };
}

function scriptAt(words: readonly string[], index: number, interpreter: string): ArgumentReader {
  const script = words[index];
  return script === undefined ? { program: interpreter } : { script: index, program: programName(script) };
}
