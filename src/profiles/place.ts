/**
 * Where a value of a profile read from YAML is written in its file, for diagnostics about the
 * profile as data. The loader records, for every mapping and list it made, where it is and where
 * each of its values is (`Origins`); a path into the profile (`['tables', 3, 'patterns', 0,
 * 'match']`) leads through them to the value. A value the file does not write itself (a table
 * taken whole from the profile it extends) is placed at the nearest enclosing value it writes.
 */
import type { Origins } from './schema-check.ts';

/** A value's place: 1-based line and column, and the length of its text on that line. */
export interface Place {
  readonly line: number;
  readonly column: number;
  readonly length: number;
  readonly lineText: string;
}

export type ProfilePath = readonly (string | number)[];

export class ProfilePlaces {
  private readonly text: string;
  private readonly root: unknown;
  private readonly origins: Origins;
  private readonly lineStarts: number[] = [0];

  /** `root` is the profile made from `text`, `origins` what the loader recorded while making it. */
  constructor(text: string, root: unknown, origins: Origins) {
    this.text = text;
    this.root = root;
    this.origins = origins;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
  }

  /** The offset of the value at `path`, or of the innermost value above it the file writes. */
  private offset(path: ProfilePath): number {
    let value: unknown = this.root;
    let offset = 0;
    for (const key of path) {
      if (value === null || typeof value !== 'object') break;
      const origin = this.origins.get(value);
      if (origin !== undefined) offset = origin.values.get(key) ?? origin.at;
      value = (value as Record<string | number, unknown>)[key];
    }
    return offset;
  }

  place(path: ProfilePath): Place {
    const offset = this.offset(path);
    let line = this.lineStarts.length;
    while (line > 1 && this.lineStarts[line - 1]! > offset) line--;
    const start = this.lineStarts[line - 1]!;
    const end = this.text.indexOf('\n', start);
    const lineText = this.text.slice(start, end < 0 ? undefined : end).replace(/\r$/, '');
    // The value's text: up to the end of its line, or of the flow collection or quoted text it opens.
    const rest = lineText.slice(offset - start);
    const length = Math.max(
      1,
      /^[[{"']/.test(rest) ? rest.length : (/^[^#]*?(?=\s*(?:#|$))/.exec(rest)?.[0].length ?? 1),
    );
    return { line, column: offset - start + 1, length, lineText };
  }
}
