// A command that looked a name up itself under network by name: no name server answers inside the sandbox (the proxy
// resolves the names it allows), so a client that ignores the proxy fails to resolve. These are the words the common
// resolvers' callers print for it (glibc, curl, wget, git, ssh, Node, Python, Go, Rust).
import type { ForegroundFacts } from '../contract/render-foreground.js';

const LOOKUP_FAILED =
  /could not resolve host(?:name)?|unable to resolve host|temporary failure in name resolution|name or service not known|no address associated with hostname|getaddrinfo (?:enotfound|eai_again)|failed to lookup address information|lookup \S+(?: on \S+)?: no such host|no servers could be reached/i;

/** Whether a confined command's output says a name lookup failed (an unconfined one resolves names itself); asked
 * only under network by name (a call with a network mark), where the proxy alone resolves names. */
export function lookupFailed(facts: Pick<ForegroundFacts, 'sandbox' | 'stdout' | 'stderr'>): boolean {
  if (facts.sandbox === undefined || facts.sandbox.mode === 'danger-full-access') return false;
  return LOOKUP_FAILED.test(facts.stdout.text) || LOOKUP_FAILED.test(facts.stderr.text);
}
