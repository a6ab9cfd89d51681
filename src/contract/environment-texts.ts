// The lines the shipped stand-ins print when a command asks for an editor, a password or a full-screen program
// (src/env/bin holds them; a test checks each script prints exactly these).

/** What to run instead of a full-screen program, by the kind of program. */
const INSTEAD = {
  editor: "edit with a command instead (sed -i, a patch, or cat > file <<'EOF'), and read with cat, head or sed -n",
  top: 'run top -b -n 1 for one snapshot',
  monitor: 'run top -b -n 1 or ps aux for one snapshot',
  watch: 'run the command itself, or repeat it in a loop with sleep',
} as const;

/** The full-screen programs a command may call by name, and what to run instead of each (src/env/bin/full-screen). */
export const FULL_SCREEN: Readonly<Record<string, keyof typeof INSTEAD>> = {
  vi: 'editor',
  vim: 'editor',
  view: 'editor',
  vimdiff: 'editor',
  nvim: 'editor',
  nano: 'editor',
  pico: 'editor',
  emacs: 'editor',
  top: 'top',
  htop: 'monitor',
  btop: 'monitor',
  atop: 'monitor',
  watch: 'watch',
};

export const environmentTexts = {
  noEditor: 'shellring: no interactive editor here; pass the text on the command line (git commit -m, --no-edit)',
  noAskpass: 'shellring: no one can type a password here; use a non-interactive login (a key, a token file, sudo -n)',
  /** A full-screen program called by name, which would wait on a terminal nobody holds. */
  fullScreen: (program: string) =>
    `shellring: ${program} is a full-screen program and this command has no terminal; ${INSTEAD[FULL_SCREEN[program]!]}`,
};
