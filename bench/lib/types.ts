// The shape every suite returns: rows of figures next to their same-run baseline, and the targets they are held to.

/** A further column's value: a figure, a word, or the figures of each run. */
export type Extra = number | string | number[];

/** One measured figure. `ratio` is `value / baseline's value` (for the baseline row itself, 1). */
export interface Row {
  name: string;
  value: number;
  unit: string;
  /** Name of the row this one is compared with; a baseline row names itself. */
  baseline: string;
  ratio: number;
  /** Further columns (secondary figures, sample counts), shown in the table and kept in the JSON. */
  extra?: Record<string, Extra>;
}

/** A group of rows printed as one table (e.g. one chunk size). */
export interface Table {
  title: string;
  rows: Row[];
}

export interface Target {
  /** What is claimed, e.g. "native append+readInto (64 KiB) >= 40% of the copy loop". */
  claim: string;
  met: boolean;
  /** The figure the claim is judged on, already worded (e.g. "53.1% (2150 vs 4049 MB/s)"). */
  figure: string;
  /** The raw number compared with the threshold. */
  value: number;
  threshold: number;
}

export interface SuiteResult {
  name: string;
  description: string;
  tables: Table[];
  targets: Target[];
  /** How the figures were taken, in a sentence or two each (method, repetitions, caveats). */
  notes: string[];
}

/** What a module in bench/suites exports; the file name is the suite's name. */
export interface Suite {
  run(): Promise<SuiteResult>;
  /** Further names that select the suite (e.g. `capture`). */
  aliases?: string[];
}
