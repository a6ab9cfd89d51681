// The page a browser without a sign-in gets at `/`: a form that POSTs the token, so it never travels in an address
// that a proxy logs or a browser keeps in its history.

/** Why the person sees the form: first visit, a wrong token, or a token sent in the address where that is refused. */
export const SIGN_IN_TEXTS = {
  prompt: 'Enter the token of this shellring server.',
  wrong: 'That token is not valid.',
  linkRefused: 'Sign in with this form: this server takes no token in the address, where proxies and browser history keep it.',
} as const;

export const SIGN_IN_CSP = "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function signInPageHtml(message: string): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    '<title>shellring console: sign in</title></head>',
    '<body><h1>shellring console</h1>',
    `<p id="message">${escapeHtml(message)}</p>`,
    '<form method="post" action="/" autocomplete="off">',
    '<label>Token <input type="password" name="token" id="token" required autofocus></label>',
    '<button type="submit" id="sign-in">Sign in</button>',
    '</form></body></html>',
    '',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
