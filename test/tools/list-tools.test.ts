// listTools() and promptSections(): what the model is shown, per configuration, byte-stable, schemas from zod.
import { afterAll, describe, expect, it } from 'vitest';
import { BASH_PROMPT, createRuntime, type Runtime, type RuntimeOptions } from '../../src/index.js';

const opened: Runtime[] = [];
async function open(options: RuntimeOptions): Promise<Runtime> {
  const runtime = await createRuntime({ ...options, executor: { threads: 1 } });
  opened.push(runtime);
  return runtime;
}

afterAll(async () => {
  await Promise.all(opened.map((runtime) => runtime.close()));
});

type Schema = { type?: string; properties: Record<string, Record<string, unknown>>; required?: string[]; $schema?: string };
const schemaOf = (runtime: Runtime, name: string) => runtime.listTools().find((tool) => tool.name === name)!.inputSchema as Schema;

const CONFIGS: [string, RuntimeOptions][] = [
  ['default', {}],
  ['enableRunInBackground: false', { enableRunInBackground: false }],
  ['promoteOnTimeout: false', { promoteOnTimeout: false }],
  ['jobs: false', { jobs: false }],
];

describe('listTools', () => {
  it.each(CONFIGS)('is byte-stable across two runtimes of the same configuration (%s)', async (_name, options) => {
    const a = await open(options);
    const b = await open(options);
    expect(JSON.stringify(a.listTools())).toBe(JSON.stringify(b.listTools()));
    expect(JSON.stringify(a.promptSections())).toBe(JSON.stringify(b.promptSections()));
    // A caller mutating its copy changes nothing for the next caller.
    const copy = a.listTools();
    copy[0]!.description = 'changed';
    (copy[0]!.inputSchema as Schema).properties.command!.type = 'number';
    expect(JSON.stringify(a.listTools())).toBe(JSON.stringify(b.listTools()));
  });

  it('lists bash and the job tools by default, with zod-generated schemas', async () => {
    const runtime = await open({});
    expect(runtime.listTools().map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input']);
    const bash = schemaOf(runtime, 'bash');
    expect(bash.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(bash.type).toBe('object');
    expect(Object.keys(bash.properties)).toEqual(['command', 'description', 'timeoutMs', 'workdir', 'run_in_background', 'tty']);
    expect(bash.required).toEqual(['command', 'description']);
    expect(bash.properties.command).toMatchObject({ type: 'string' });
    expect(bash.properties.description).toMatchObject({ type: 'string' });
    expect(bash.properties.timeoutMs).toMatchObject({ type: 'number', exclusiveMinimum: 0 });
    expect(bash.properties.workdir).toMatchObject({ type: 'string' });
    expect(bash.properties.run_in_background).toMatchObject({ type: 'boolean' });
    for (const key of ['command', 'description', 'timeoutMs', 'workdir', 'run_in_background', 'tty']) {
      expect(typeof bash.properties[key]!.description, key).toBe('string');
    }
    // No sandboxing executor: the escalation fields are not advertised.
    expect(bash.properties.sandbox_permissions).toBeUndefined();
    expect(bash.properties.justification).toBeUndefined();

    const output = schemaOf(runtime, 'job_output');
    expect(output.required).toEqual(['job_id']);
    expect(output.properties.job_id).toMatchObject({ type: 'string' });
    expect(output.properties.wait).toMatchObject({ type: 'boolean' });
    expect(output.properties.timeout_ms).toMatchObject({ type: 'number', exclusiveMinimum: 0 });
    expect(schemaOf(runtime, 'job_list')).toMatchObject({ type: 'object', properties: {} });
    expect(schemaOf(runtime, 'job_list').required).toBeUndefined();
    const kill = schemaOf(runtime, 'job_kill');
    expect(kill.required).toEqual(['job_id']);
    expect(kill.properties.reason).toMatchObject({ type: 'string' });
  });

  it('the timeout is described as a hand-over only when promotion holds', async () => {
    const promoting = schemaOf(await open({}), 'bash').properties.timeoutMs!.description as string;
    const killing = schemaOf(await open({ promoteOnTimeout: false }), 'bash').properties.timeoutMs!.description as string;
    expect(promoting).toMatch(/background job/);
    expect(killing).not.toMatch(/background/);
    expect(killing).toMatch(/killed/);
  });

  it('omits run_in_background with enableRunInBackground: false', async () => {
    const runtime = await open({ enableRunInBackground: false });
    const bash = schemaOf(runtime, 'bash');
    expect(bash.properties.run_in_background).toBeUndefined();
    expect(Object.keys(bash.properties)).toEqual(['command', 'description', 'timeoutMs', 'workdir']);
    expect(bash.required).toEqual(['command', 'description']);
    expect(runtime.listTools()[0]!.description).not.toMatch(/run_in_background/);
  });

  it('omits run_in_background and the job tools with jobs: false', async () => {
    const runtime = await open({ jobs: false });
    expect(runtime.listTools().map((tool) => tool.name)).toEqual(['bash']);
    expect(schemaOf(runtime, 'bash').properties.run_in_background).toBeUndefined();
    expect(runtime.listTools()[0]!.description).not.toMatch(/run_in_background|job_output/);
  });

  it('different configurations list different bytes', async () => {
    const listed = await Promise.all(CONFIGS.map(async ([, options]) => JSON.stringify((await open(options)).listTools())));
    expect(new Set(listed).size).toBe(CONFIGS.length);
  });
});

describe('promptSections', () => {
  it('has the bash section, and the jobs section when a registry is composed', async () => {
    const sections = (await open({})).promptSections();
    expect(sections[0]).toEqual({
      name: 'tool:bash',
      order: 1000,
      text: 'Check the [exit code: N] marker on every bash result; investigate failures before moving on.',
    });
    expect(BASH_PROMPT).toBe(sections[0]!.text);
    expect(sections.map((s) => s.name)).toEqual(['tool:bash', 'tool:jobs']);
    const jobs = sections[1]!.text;
    // Track ids, do not busy-poll, collect or kill jobs before answering.
    expect(jobs).toMatch(/job ids/);
    expect(jobs).toMatch(/poll/);
    expect(jobs).toMatch(/job_kill/);
    // It names the continuation line a partial read ends with.
    expect(jobs).toContain('when a result says `[more output available — call job_output again]`, call it again');
    expect((await open({ jobs: false })).promptSections().map((s) => s.name)).toEqual(['tool:bash']);
  });
});
