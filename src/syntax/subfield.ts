/** Subfield references `NAME[]`, `NAME[n]`, `NAME[a..b]` (and bare `NAME` for the whole field). */
import type { Subfield } from '../model/actions.ts';
import { fieldBySubfieldName, subfieldName } from '../model/fields.ts';

export type SubfieldResult =
  { readonly ok: true; readonly subfield: Subfield } | { readonly ok: false; readonly error: string };

const SUBFIELD_RE = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[(?:(\d+)(?:\.\.(\d+))?)?\])?$/;

/** Parses a subfield reference; field names, aliases and NXM/OXM names are all accepted. */
export function parseSubfield(text: string): SubfieldResult {
  const m = SUBFIELD_RE.exec(text.trim());
  if (!m) return { ok: false, error: `${text}: invalid subfield syntax` };
  const name = m[1]!;
  const field = fieldBySubfieldName(name);
  if (!field) return { ok: false, error: `${text}: unknown field \`${name}'` };
  if (m[2] === undefined) return { ok: true, subfield: { field, start: 0, bits: field.bits } };
  const start = Number(m[2]);
  const last = m[3] === undefined ? start : Number(m[3]);
  if (start >= field.bits) {
    return {
      ok: false,
      error: `${text}: starting bit ${start} is not valid because field is only ${field.bits} bits wide`,
    };
  }
  if (last >= field.bits) {
    return {
      ok: false,
      error: `${text}: ending bit ${last} is not valid because field is only ${field.bits} bits wide`,
    };
  }
  if (last < start) return { ok: false, error: `${text}: starting bit ${start} is greater than ending bit ${last}` };
  return { ok: true, subfield: { field, start, bits: last - start + 1 } };
}

/** Whether the subfield covers its whole field. */
export function isWholeField(sf: Subfield): boolean {
  return sf.start === 0 && sf.bits === sf.field.bits;
}

/** The subfield as OVS prints it: NXM/OXM name, `[]` for the whole field, `[n]` for one bit. */
export function formatSubfield(sf: Subfield): string {
  const name = subfieldName(sf.field);
  if (isWholeField(sf)) return `${name}[]`;
  if (sf.bits === 1) return `${name}[${sf.start}]`;
  return `${name}[${sf.start}..${sf.start + sf.bits - 1}]`;
}
