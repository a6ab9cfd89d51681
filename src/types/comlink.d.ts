// Types for comlink's ESM entry points, which ship without declarations of their own (the UMD build has them).
declare module 'comlink/dist/esm/comlink.mjs' {
  export * from 'comlink';
}

declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink';
  /** Adapts a Node MessagePort (on/off listeners) to the DOM-style endpoint comlink expects. */
  export default function nodeEndpoint(port: {
    postMessage(message: unknown, transfer?: unknown[]): void;
    on(type: string, listener: (...args: unknown[]) => void): void;
    off(type: string, listener: (...args: unknown[]) => void): void;
    start?: () => void;
  }): Endpoint;
}
