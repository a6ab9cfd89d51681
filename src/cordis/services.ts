// The services and events shellring's Cordis plugins provide, declared on Cordis' Context.
import type { EnvRegistry } from '../env/registry.js';
import type { Executor } from '../executor/types.js';
import type { JobRegistry } from '../jobs/registry.js';
import type { PromptRegistry } from './prompt-registry.js';
import type { ToolRegistry } from './tool-registry.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { ApprovalConfig } from '../sandbox/approval.js';

/** The host's session persistence seam: where a session's JSONL file is (a hint; it may not exist yet). */
export interface SessionPersistence {
  locate(sessionId: string): string | undefined;
}

/** A finished background job, addressed to the session that owns it. */
export interface JobNotice {
  sessionId: string;
  jobId: string;
  text: string;
}

declare module 'cordis' {
  interface Context {
    /** The executor seam: resolve / run / start. */
    shell: Executor;
    /** The managed DSH_* environment. */
    shellEnv: EnvRegistry;
    /** The background job runtime. */
    jobs: JobRegistry;
    tools: ToolRegistry;
    /** The sandboxing policy, when the executor confines commands. */
    sandboxPolicy: Sandbox;
    /** The host's approval service for sandbox escalation. */
    approval: ApprovalConfig;
    systemPrompt: PromptRegistry;
    /** The host's session persistence: `locate()` gives DSH_SESSION_JSONL. */
    sessionPersistence: SessionPersistence;
  }

  interface Events {
    /** A background job finished; the host delivers the text to the owning session. */
    'jobs/notice'(notice: JobNotice): void;
  }
}
