// What the model reads about terminal jobs: the bash tool's `tty` argument, the job_input tool, its results and
// errors, and the rendered screen job_output adds while a full-screen program runs (and the screen it renders).

/** The longest line a terminal takes in its line-editing mode (Linux's N_TTY_BUF_SIZE less the newline). */
export const MAX_TERMINAL_LINE = 4095;
/** The size of a terminal job's terminal. */
export const TERMINAL_SIZE = { cols: 80, rows: 24 } as const;

/** The screen as the runner's model holds it: each row's text without trailing blanks, the cursor (0-based), and
 * whether a full-screen program drew it on the alternate screen. */
export interface TermScreen {
  cols: number;
  rows: number;
  alternate: boolean;
  cursorRow: number;
  cursorCol: number;
  lines: string[];
}

export const terminalDocs = {
  tty: 'Run the command on a terminal of its own, for programs that need one: REPLs, password prompts, editors, installers that ask questions. Set run_in_background: true with it, then answer the program with job_input and read it with job_output.',
  jobInput:
    'Type into one of your terminal jobs (started with tty: true): text, then named keys, then end-of-file, in that order. Returns what the program printed in reply (your own typing not echoed back) once it is quiet, then the job status line. To a job without a terminal only keys: ["ctrl-c"] can be sent: it interrupts the job.',
  jobId: 'The terminal job, as `started background job <id>` named it.',
  text: 'Text to type. A newline in it is the Enter key. A line longer than a terminal takes is refused: write long input to a file instead.',
  keys: 'Keys to press after the text, in order: enter, tab, esc, backspace, delete, up, down, left, right, home, end, pageup, pagedown, ctrl-c, ctrl-d, ctrl-z, ctrl-l, and the function keys named f1 and so on.',
  eof: 'End of input (ctrl-d at the start of a line): a program reading lines sees its input end.',
};

export const terminalErrors = {
  /** What `keys` must be, in the job tools' type error. */
  keysType: 'an array of key names',
  nothing: 'job_input needs text, keys or eof: nothing to type',
  unknownKey: (key: string, known: readonly string[]) => `unknown key ${JSON.stringify(key)}: use one of ${known.join(', ')}`,
  longLine: (bytes: number) =>
    `a line of ${bytes} bytes is longer than a terminal takes (${MAX_TERMINAL_LINE} bytes): nothing was typed; write the input to a file and give the program the file instead`,
  limit: (n: number) =>
    `terminal job limit reached for this session (limit: ${n}); end a terminal job you no longer need with job_kill, then retry`,
  noTerminal: (id: string) =>
    `job ${id} has no terminal (it was not started with tty: true): only keys: ["ctrl-c"] reaches it, as an interrupt; rerun it with tty: true to type into it`,
};

export const terminalTexts = {
  interrupted: (id: string) => `sent an interrupt (SIGINT) to job ${id}`,
  noReply: '(no reply output)',
  ended: (id: string) => `job ${id} has ended; nothing was typed`,
  /** Leads the rendered screen of a program on the alternate screen (an editor, a pager). */
  screen: (cols: number, rows: number, row: number, col: number) =>
    `[screen ${cols}x${rows}, cursor at row ${row + 1}, column ${col + 1}]`,
  screenEnd: '[end of screen]',
  /** Leads the model's next read of a terminal job a person typed into from the console (`typed` as a JSON string:
   * control keys stay visible; cut at `TYPED_SHOWN` characters). */
  personTyped: (typed: string) => `[a person typed into this terminal: ${typed}]`,
};

/** The most of a person's typing the model's next read shows. */
export const TYPED_SHOWN = 1000;

export const toolTitleJobInput = 'Type into a terminal job';
