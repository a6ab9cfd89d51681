// Prompt sections and their one order: by `order`, then by name, each name once, whoever assembles them.

export interface PromptSection {
  name: string;
  order: number;
  text: string;
}

/** Copies in prompt order; a later section under a name already taken is dropped (tools may share one). */
export function orderSections(sections: readonly PromptSection[]): PromptSection[] {
  const seen = new Set<string>();
  return sections
    .filter((section) => !seen.has(section.name) && Boolean(seen.add(section.name)))
    .map((section) => ({ ...section }))
    .sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
