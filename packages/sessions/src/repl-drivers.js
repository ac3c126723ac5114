// @ts-check
// Plain JavaScript: part of the supervisor process (see supervisor.js).
// How each kind of interpreter is started and told to run one block of code and then print an end
// marker on stdout (with the exit code) and on stderr.

/** @typedef {'python' | 'node' | 'generic'} InterpreterFlavour */

// Runs each request's code in __main__ like the REPL does (a last expression is displayed), and
// turns exceptions, SystemExit and the supervisor's SIGINT (on timeout) into an exit code.
const pythonDriver = String.raw`
def _delta_main():
    import ast, json, os, signal, sys, traceback
    requests = os.fdopen(os.dup(0), 'rb')
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    sys.stdin = open(os.devnull)
    namespace = sys.modules['__main__'].__dict__
    state = {'running': False}

    def on_interrupt(signum, frame):
        if state['running']:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_interrupt)

    def show(error):
        trace = error.__traceback__
        while trace is not None and trace.tb_frame.f_code.co_filename != '<session>':
            trace = trace.tb_next
        report = traceback.TracebackException(type(error), error, trace)
        # A timeout's KeyboardInterrupt is raised in on_interrupt: that frame is the driver's, not the user's.
        report.stack = traceback.StackSummary.from_list(
            [step for step in report.stack if step.name != 'on_interrupt' or step.filename != '<string>'])
        sys.stderr.write(''.join(report.format()))

    while True:
        line = requests.readline()
        if not line:
            break
        request = json.loads(line)
        status = 0
        try:
            state['running'] = True
            tree = ast.parse(request['code'], '<session>', 'exec')
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            exec(compile(tree, '<session>', 'exec'), namespace)
            if last is not None:
                sys.displayhook(eval(compile(last, '<session>', 'eval'), namespace))
        except SystemExit as error:
            if error.code is None:
                status = 0
            elif isinstance(error.code, int):
                status = error.code
            else:
                print(error.code, file=sys.stderr)
                status = 1
        except KeyboardInterrupt as error:
            show(error)
            status = 130
        except BaseException as error:
            show(error)
            status = 1
        finally:
            state['running'] = False
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os.write(1, ('%s:%d\n' % (request['marker'], status)).encode())
        os.write(2, ('%s\n' % request['marker']).encode())
    os._exit(0)

_delta_main()
`;

// Runs each request's code as a script in the main context, so top-level let/const/function
// declarations persist; a last expression's value is shown, a returned promise is awaited.
const nodeDriver = String.raw`
const vm = require('node:vm');
const util = require('node:util');
const readline = require('node:readline');
let interrupt = null;
process.on('SIGINT', () => {
  if (interrupt) interrupt(Object.assign(new Error('Interrupted by SIGINT'), { code: 'ERR_SCRIPT_EXECUTION_INTERRUPTED' }));
});
(async () => {
  const lines = readline.createInterface({ input: process.stdin, terminal: false, crlfDelay: Infinity });
  for await (const line of lines) {
    const request = JSON.parse(line);
    let status = 0;
    try {
      let value = new vm.Script(request.code, { filename: 'session' }).runInThisContext({ breakOnSigint: true });
      if (value !== null && typeof value === 'object' && typeof value.then === 'function') {
        const pending = value;
        value = await new Promise((resolve, reject) => {
          interrupt = reject;
          pending.then(resolve, reject);
        });
      }
      if (value !== undefined) process.stdout.write(util.inspect(value) + '\n');
    } catch (error) {
      status = error && error.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED' ? 130 : 1;
      process.stderr.write((error && error.stack ? error.stack : String(error)) + '\n');
    } finally {
      interrupt = null;
    }
    process.stdout.write(request.marker + ':' + status + '\n');
    process.stderr.write(request.marker + '\n');
  }
  process.exit(0);
})();
`;

/**
 * @param {string} command the interpreter as given to start, e.g. `python3` or `/usr/bin/node`
 * @returns {InterpreterFlavour}
 */
export function interpreterFlavour(command) {
  const name = command.split('/').pop() ?? command;
  if (/^python(\d+(\.\d+)*)?$/.test(name)) return 'python';
  if (name === 'node' || name === 'nodejs') return 'node';
  return 'generic';
}

/**
 * The argv that starts the interpreter: python and node run a small driver (the user's own
 * arguments come first); anything else is started as given and treated as a POSIX-like shell.
 * @param {string[]} argv
 * @returns {string[]}
 */
export function interpreterArgv(argv) {
  const [command = '', ...rest] = argv;
  switch (interpreterFlavour(command)) {
    case 'python':
      return [command, ...rest, '-u', '-c', pythonDriver];
    case 'node':
      return [command, ...rest, '-e', nodeDriver];
    default:
      return argv;
  }
}

/**
 * What to write on the interpreter's stdin to run `code` and then print the end markers.
 * @param {InterpreterFlavour} flavour
 * @param {string} marker
 * @param {string} code
 */
export function encodeRequest(flavour, marker, code) {
  if (flavour !== 'generic') return `${JSON.stringify({ marker, code })}\n`;
  return `${code}\necho '${marker}:'$?\necho '${marker}' >&2\n`;
}
