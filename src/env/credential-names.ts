// Which variable names mark a credential (tables, with the rule that reads them): secret words in English and the
// languages operators write config in, their abbreviations, and words glued to a tool's name (PGPASS, GHPAT).
// docs/environment.md lists them with the reasoning.

/** Found anywhere in a name. */
export const SECRET_FRAGMENTS = [
  // English, and the spellings tools use.
  'KEY', 'TOKEN', 'SECRET', 'PASSW', 'PASSPHRASE', 'PASSCODE', 'CREDENTIAL', 'COOKIE', 'SESSION', 'PRIVATE',
  'WEBHOOK', 'ASKPASS', 'KUBECONFIG', 'NETRC', 'AUTHORIZATION', 'BEARER',
  // Password in German, Spanish (and Galician), Portuguese, Dutch, Swedish, Norwegian, Danish, Finnish,
  // Polish, Czech and Slovak, Hungarian, Italian/Romanian/Turkish/Russian (parola, parole, parol).
  'KENNWORT', 'CONTRASENA', 'CONTRASINAL', 'SENHA', 'WACHTWOORD', 'LOSENORD', 'PASSORD', 'ADGANGSKODE',
  'SALASANA', 'HASLO', 'HESLO', 'JELSZO', 'PAROL',
  // Secret and key, in German, Italian and Portuguese.
  'GEHEIM', 'SCHLUSSEL', 'SCHLUESSEL', 'SEGRETO', 'SEGREDO', 'CHIAVE',
] as const;

/** Found anywhere in a name read without its separators: phrases of several words (MOT_DE_PASSE), and
 * connection strings, which carry their password inline (ADO.NET, ODBC). */
export const SECRET_PHRASES = ['MOTDEPASSE', 'CONNSTR', 'CONNECTIONSTRING'] as const;

/** Too short or too common inside other words: secret only as a whole `_`/`-`/`.`-separated word. */
export const SECRET_WORDS = [
  'PASS', 'PWD', 'PW', 'PSW', 'PAT', 'GHPAT', 'GLPAT', 'AUTH', 'DSN', 'JDBC', 'CERT', 'CERTS', 'CREDS', 'SK', 'JWT',
  'OTP', 'TOTP', 'SALT', 'SEED', 'PEPPER', 'MNEMONIC', 'PIN', 'HMAC',
  // Mot de passe, clave/chave (key), şifre, jeton (token).
  'MDP', 'CLAVE', 'CHAVE', 'SIFRE', 'JETON',
] as const;

/** A word ending in one of these is a password of the tool its first letters name: PGPASS, SSHPASS, DBPW, ROOTPWD. */
export const SECRET_SUFFIXES = ['PASS', 'PW', 'PWD'] as const;
/** English words that end so yet name no password. */
const NOT_PASSWORDS = new Set(['BYPASS', 'COMPASS', 'ENCOMPASS', 'SURPASS', 'TRESPASS', 'OVERPASS', 'UNDERPASS']);

/**
 * Secret words as they are shortened by dropping vowels (TKN, KY, SCRT, PSWD): a word whose vowel-less form is one
 * of these is a secret word too. Only forms of three or more letters, or KY, which names nothing ordinary.
 */
export const SECRET_SKELETONS = ['TKN', 'TKNS', 'KY', 'KYS', 'SCRT', 'SCRTS', 'PSWD', 'PSWRD', 'PSPHRS', 'CRDNTL', 'CRDNTLS', 'PRVT'] as const;

/** Names that hold a secret word yet name public things: the shell's directories, TLS trust anchors, settings. */
export const ORDINARY_NAMES = new Set([
  'PWD', 'OLDPWD', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS',
  // Go's list of private module paths; the tokenizers library's thread switch.
  'GOPRIVATE', 'TOKENIZERS_PARALLELISM',
]);

/** Digits written for the letters they look like (PASSW0RD, T0KEN, S3CRET). */
const LOOKALIKES: Record<string, string> = { '0': 'O', '1': 'I', '3': 'E', '4': 'A', '5': 'S', '7': 'T', '@': 'A', $: 'S' };

const SEPARATORS = /[_\-.]+/;

/** Whether a name marks a credential by the tables above. */
export function nameLooksSecret(name: string): boolean {
  // Letters with accents are read without them (CONTRASEÑA, HASŁO, JELSZÓ); ß is SS.
  const upper = name.toUpperCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/Ł/g, 'L');
  if (ORDINARY_NAMES.has(upper)) return false;
  const plain = upper.replace(/[0134579@$]/g, (c) => LOOKALIKES[c] ?? c);
  return (plain === upper ? [upper] : [upper, plain]).some(formLooksSecret);
}

function formLooksSecret(form: string): boolean {
  if (SECRET_FRAGMENTS.some((fragment) => form.includes(fragment))) return true;
  const joined = form.replace(/[_\-.]/g, '');
  if (SECRET_PHRASES.some((phrase) => joined.includes(phrase))) return true;
  return form.split(SEPARATORS).some(wordLooksSecret);
}

function wordLooksSecret(word: string): boolean {
  if ((SECRET_WORDS as readonly string[]).includes(word)) return true;
  if ((SECRET_SKELETONS as readonly string[]).includes(skeleton(word))) return true;
  return !NOT_PASSWORDS.has(word) && SECRET_SUFFIXES.some((suffix) => word.length > suffix.length && word.endsWith(suffix));
}

/** A word without its vowels and with doubled letters single: TOKEN -> TKN, PASSWORD -> PSWRD. */
function skeleton(word: string): string {
  return word.replace(/[AEIOU]/g, '').replace(/(.)\1+/g, '$1');
}
