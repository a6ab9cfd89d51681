// What an MCP client shows while a long tool call runs: the message of each progress notification.

/**
 * How long the call has run and, once its command started, how many bytes that command has written (stdout and
 * stderr together). Before a command starts (an approval pending) or for a call without one, the time alone.
 */
export function progressMessage(bytes: number | undefined, elapsedMs: number): string {
  const seconds = Math.floor(elapsedMs / 1000);
  return bytes === undefined ? `running for ${seconds} s` : `${bytes} bytes of output after ${seconds} s`;
}
