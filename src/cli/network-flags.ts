// --network and the domain mode's flags: allow, deny or domains, and the hosts, presets and asking of the domain
// mode, laid over the --config file's network setting.
import type { SandboxConfigInput } from '../sandbox/config.js';
import { NETWORK_PRESETS, type DomainsConfigInput, type NetworkPreset } from '../sandbox/network-config.js';
import { choiceOption, usageError } from './args.js';

type Values = Record<string, string | boolean | undefined>;

const PRESETS = Object.keys(NETWORK_PRESETS) as NetworkPreset[];

/** The flags that describe a domain policy; any of them means `--network domains`. */
const DOMAIN_FLAGS = ['network-allow', 'network-deny', 'network-presets', 'network-ask'] as const;

/** The network setting the flags give over `file` (the config file's), or undefined when no flag names one. */
export function networkFromFlags(values: Values, file: SandboxConfigInput['network']): SandboxConfigInput['network'] | undefined {
  const mode = choiceOption('--network', values.network, ['allow', 'deny', 'domains'] as const);
  const given = DOMAIN_FLAGS.filter((flag) => values[flag] !== undefined);
  if (given.length === 0) return mode === 'domains' ? domainsOf(file) : mode;
  if (mode !== undefined && mode !== 'domains') throw usageError(`--${given[0]} needs --network domains, not --network ${mode}`);
  const domains = domainsOf(file);
  if (typeof values['network-allow'] === 'string') domains.allow = list(values['network-allow']);
  if (typeof values['network-deny'] === 'string') domains.deny = list(values['network-deny']);
  if (typeof values['network-presets'] === 'string') {
    domains.presets = list(values['network-presets']).map((name) => choiceOption('--network-presets', name, PRESETS)!);
  }
  if (values['network-ask'] === true) domains.ask = true;
  return domains;
}

/** The config file's domain policy to lay flags over, or an empty one (every host refused). */
function domainsOf(file: SandboxConfigInput['network']): DomainsConfigInput {
  return typeof file === 'object' ? { ...file } : { mode: 'domains' };
}

export function list(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}
