// Plugin providing the `systemPrompt` service, so an app can be composed from shellring alone.
import type { Context } from 'cordis';
import './services.js';
import { PromptRegistry } from './prompt-registry.js';

export const name = 'system-prompt';

export function apply(ctx: Context): void {
  ctx.set('systemPrompt', new PromptRegistry());
}
