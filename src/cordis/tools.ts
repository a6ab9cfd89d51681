// Plugin providing the `tools` service, so an app can be composed from shellring alone.
import type { Context } from 'cordis';
import './services.js';
import { ToolRegistry } from './tool-registry.js';

export const name = 'tools';

export function apply(ctx: Context): void {
  ctx.set('tools', new ToolRegistry());
}
