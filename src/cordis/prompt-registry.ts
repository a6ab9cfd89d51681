// The `systemPrompt` service: named prompt sections, rendered in order.
import type { PromptSection } from '../runtime/runtime.js';
import { orderSections } from '../tools/prompt-sections.js';
import { ShellringError } from '../errors.js';

export class PromptRegistry {
  readonly #sections = new Map<string, PromptSection>();

  /** Adds a section; the returned function removes exactly this registration. */
  register(section: PromptSection): () => void {
    if (this.#sections.has(section.name)) {
      throw new ShellringError('SHELLRING_REGISTRATION', `prompt section ${JSON.stringify(section.name)} is already registered`);
    }
    const own = { ...section };
    this.#sections.set(own.name, own);
    return () => {
      if (this.#sections.get(own.name) === own) this.#sections.delete(own.name);
    };
  }

  get(name: string): PromptSection | undefined {
    const section = this.#sections.get(name);
    return section && { ...section };
  }

  /** In prompt order, so the text never depends on which plugin loaded first. */
  sections(): PromptSection[] {
    return orderSections([...this.#sections.values()]);
  }

  render(): string {
    return this.sections()
      .map((section) => section.text)
      .join('\n\n');
  }
}
