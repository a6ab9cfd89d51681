// The errors a capture call can raise, with the same messages and codes as the native core.

function coded(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

export function unknownCapture(id: number): Error {
  // Infinities print as JS spells them; every other number as the core prints it.
  const shown = id === Infinity || id === -Infinity ? String(id) : rustNumber(id);
  return coded(`unknown capture ${shown}`, 'SHELLRING_UNKNOWN_CAPTURE');
}

export function noRing(id: number): Error {
  return coded(`capture ${id} has no ring`, 'SHELLRING_NO_RING');
}

export function invalidOptions(why: string): Error {
  return coded(`invalid capture options: ${why}`, 'SHELLRING_INVALID_OPTIONS');
}

export function bufferTooSmall(needed: number, available: number): Error {
  return coded(
    `buffer of ${available} bytes cannot hold the next character (${needed} bytes)`,
    'SHELLRING_BUFFER_TOO_SMALL',
  );
}

export function invalidArgument(message: string): Error {
  return coded(message, 'SHELLRING_INVALID_ARGUMENT');
}

/** A number as the core prints it: no exponent, `inf` for infinity, `-0` kept. */
export function rustNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  if (Object.is(value, -0)) return '-0';
  const text = String(value);
  const exponent = text.indexOf('e');
  if (exponent < 0) return text;
  const sign = text.startsWith('-') ? '-' : '';
  const mantissa = text.slice(sign.length, exponent);
  const power = Number(text.slice(exponent + 1));
  const point = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  const integerDigits = (point < 0 ? mantissa.length : point) + power;
  if (integerDigits <= 0) return `${sign}0.${'0'.repeat(-integerDigits)}${digits}`;
  if (integerDigits >= digits.length) return sign + digits + '0'.repeat(integerDigits - digits.length);
  return `${sign}${digits.slice(0, integerDigits)}.${digits.slice(integerDigits)}`;
}

/** A string quoted and escaped the way the core's messages show it (Rust's `{:?}`). */
export function debugString(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code === 0) out += '\\0';
    else if (code < 0x20 || code === 0x7f) out += `\\u{${code.toString(16)}}`;
    else out += char;
  }
  return `${out}"`;
}
