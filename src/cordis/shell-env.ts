// Plugin providing the `shellEnv` service: the DSH_* environment registry every bash call collects from.
import type { Context } from 'cordis';
import Schema from 'schemastery';
import { assembleEnv } from '../runtime/assembly.js';
import './services.js';

export const name = 'shell-env';

/** Persistence is followed as it comes and goes: each call asks the service present at that moment. */
export const inject = { optional: ['sessionPersistence'] };

export interface Config {
  dshHome?: string;
}

export const Config: Schema<Config> = Schema.object({
  dshHome: Schema.string().description('DSH_HOME (default: a non-blank $DSH_HOME, else ~/.dsh).'),
});

export function apply(ctx: Context, config: Config): void {
  ctx.set(
    'shellEnv',
    assembleEnv({ dshHome: config.dshHome, locateSessionJsonl: (sessionId) => ctx.get('sessionPersistence')?.locate(sessionId) }),
  );
}
