// The runtime tools' public types: each tool's arguments and structured result, derived from the zod schemas that
// validate and list them (so they cannot drift), and the tables by tool name that type `Session.callTool`.
import type { z } from 'zod';
import type { CallOptions } from './call-input.js';
import type { BashArgumentFields } from './bash-schema.js';
import type { JobKillArgsSchema, JobListArgsSchema, JobOutputArgsSchema } from './job-tools.js';
import type { JobInputArgsSchema } from './job-input.js';
import type { bashOutputSchema, jobKillSchema, jobListSchema, jobOutputSchema } from './output-schemas.js';

/** A loose zod object's type without its index signatures, at every depth: only the keys the schema names. */
type Known<T> = T extends readonly (infer E)[]
  ? Known<E>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Known<T[K]> }
    : T;

/** No keys at all: an object that names none (an empty object type would take anything). */
type Exact<T> = keyof T extends never ? Record<string, never> : T;

/** One flat object type, for readable hovers. */
type Flat<T> = { [K in keyof T]: T[K] };

/** `K` of `T`, present and never undefined. */
type Present<T, K extends keyof T> = { [P in K]-?: Exclude<T[P], undefined> };

export type BashArguments = z.input<z.ZodObject<BashArgumentFields>>;
export type JobOutputArguments = Known<z.input<JobOutputArgsSchema>>;
export type JobListArguments = Exact<Known<z.input<JobListArgsSchema>>>;
export type JobKillArguments = Known<z.input<JobKillArgsSchema>>;
export type JobInputArguments = Known<z.input<JobInputArgsSchema>>;

type BashOutput = Known<z.output<typeof bashOutputSchema>>;

/** A command that ended within its call: `exitCode` is null when a signal ended it. */
export type BashForegroundResult = Flat<
  { kind: 'foreground' } & Present<BashOutput, 'exitCode' | 'signal' | 'timedOut' | 'aborted' | 'timeoutMs' | 'stdout' | 'stderr'> &
    Pick<BashOutput, 'stopped' | 'sandbox' | 'leftover' | 'networkBlocked'>
>;
/** `run_in_background`: the job it started. */
export type BashBackgroundResult = Flat<{ kind: 'background' } & Present<BashOutput, 'jobId'>>;
/** A foreground command still running at its timeout (or waiting for input), handed over to a job. */
export type BashPromotedResult = Flat<{ kind: 'promoted' } & Present<BashOutput, 'jobId' | 'timeoutMs' | 'output'> & Pick<BashOutput, 'waiting'>>;
export type BashResult = BashForegroundResult | BashBackgroundResult | BashPromotedResult;

export type JobOutputResult = Known<z.output<typeof jobOutputSchema>>;
export type JobListResult = Known<z.output<typeof jobListSchema>>;
export type JobKillResult = Known<z.output<typeof jobKillSchema>>;

/** Each runtime tool's arguments, by name. */
export interface ToolArgumentsMap {
  bash: BashArguments;
  job_output: JobOutputArguments;
  job_list: JobListArguments;
  job_kill: JobKillArguments;
  job_input: JobInputArguments;
}

/** Each runtime tool's structured result, by name. */
export interface ToolResultsMap {
  bash: BashResult;
  job_output: JobOutputResult;
  job_list: JobListResult;
  job_kill: JobKillResult;
  /** What the program printed in reply, read as job_output reads. */
  job_input: JobOutputResult;
}

export type ToolName = keyof ToolArgumentsMap;

/** A call's result: text for the model, and on success the structured result; an error has text only. */
export type ToolCallResult<S> =
  | { content: { type: 'text'; text: string }[]; isError?: false; structuredContent: S }
  | { content: { type: 'text'; text: string }[]; isError: true; structuredContent?: undefined };

/** What follows the name in `callTool`: the arguments (optional where the tool needs none), then the options. */
export type ToolCallRest<N extends ToolName> = Record<string, never> extends ToolArgumentsMap[N]
  ? [args?: ToolArgumentsMap[N], options?: CallOptions | null]
  : [args: ToolArgumentsMap[N], options?: CallOptions | null];
