// The lines the shipped stand-ins print when a command asks for an editor or a password (src/env/bin holds them;
// a test checks each script prints exactly these).

export const environmentTexts = {
  noEditor: 'shellring: no interactive editor here; pass the text on the command line (git commit -m, --no-edit)',
  noAskpass: 'shellring: no one can type a password here; use a non-interactive login (a key, a token file, sudo -n)',
};
