// The page a browser without a sign-in gets at `/`: a form that POSTs the token, so it never travels in an address
// that a proxy logs or a browser keeps in its history. It wears the console's own stylesheet, inlined by hash.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** Why the person sees the form: first visit, a wrong token (or too many), or a token sent in the address where that is refused. */
export const SIGN_IN_TEXTS = {
  prompt: 'Enter the token of this shellring server.',
  wrong: 'That token is not valid.',
  linkRefused: 'Sign in with this form: this server takes no token in the address, where proxies and browser history keep it.',
  throttled: (seconds: number) => `Too many wrong tokens from this address: try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
} as const;

/** The console's base stylesheet: the page is served before any sign-in, so it carries its style inline. */
const STYLE = readFileSync(new URL('./page/base.css', import.meta.url), 'utf8');

export const SIGN_IN_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function signInPageHtml(message: string): string {
  const wrong = message !== SIGN_IN_TEXTS.prompt;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>shellring console: sign in</title><style>${STYLE}</style></head>`,
    '<body><header class="top"><h1><span class="brand">shellring</span> console</h1></header>',
    '<main class="signin">',
    `<p id="message" class="message${wrong ? ' wrong' : ''}">${escapeHtml(message)}</p>`,
    '<form method="post" action="/" autocomplete="off">',
    '<label>Token <input type="password" name="token" id="token" required autofocus></label>',
    '<button type="submit" id="sign-in" class="primary">Sign in</button>',
    '</form>',
    '<p class="muted"><small>The token is the one <code>shellring serve</code> printed or read from its token file.</small></p>',
    '</main></body></html>',
    '',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
