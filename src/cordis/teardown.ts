// Closing resources when a plugin is disposed, and a way for the host to wait until they are closed.
import type { Context } from 'cordis';

// Cordis 3 calls dispose listeners without awaiting them, so a plugin's asynchronous close would be
// unobservable: a host could exit while worker threads and process groups are still being torn down.
const pending = new WeakMap<object, Set<Promise<void>>>();

/** Runs `close` when the plugin behind `ctx` is disposed; `whenClosed` waits for it. */
export function closeOnDispose(ctx: Context, close: () => Promise<void>): void {
  ctx.on('dispose', () => {
    const root = ctx.root;
    const closing = pending.get(root) ?? new Set<Promise<void>>();
    pending.set(root, closing);
    const task: Promise<void> = close()
      .catch((error: unknown) => ctx.emit(ctx, 'internal/error', error))
      .finally(() => closing.delete(task));
    closing.add(task);
  });
}

/** Resolves once every shellring resource disposed so far in this app has finished closing. */
export async function whenClosed(ctx: Context): Promise<void> {
  const closing = pending.get(ctx.root);
  while (closing?.size) await Promise.all([...closing]);
}
