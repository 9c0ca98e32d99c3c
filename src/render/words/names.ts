/** A subfield and a conntrack zone in words, with the pipeline's name for them when it has one. */
import type { NamedSubfield, NamedZone } from '../../analysis/annotate/wording.ts';
import type { Subfield } from '../../model/actions.ts';
import type { TableRef } from '../../model/tables.ts';

/** `reg0[16]`, `reg0[0..3]`, `reg1` (the whole field), with registry names rather than NXM names. */
export function shortSubfield(sf: Subfield): string {
  if (sf.start === 0 && sf.bits === sf.field.bits) return sf.field.name;
  if (sf.bits === 1) return `${sf.field.name}[${sf.start}]`;
  return `${sf.field.name}[${sf.start}..${sf.start + sf.bits - 1}]`;
}

/** A table as a report names it (`Wording.table`): `SpoofGuard`, `table 7`. */
export function tableNameWords(t: TableRef): string {
  return t.kind === 'number' ? `table ${t.number}` : t.name;
}

/** `TargetOFPort (reg1)`, `reg0[0..3]`. */
export function subfieldWords(n: NamedSubfield): string {
  return n.name === undefined ? shortSubfield(n.subfield) : `${n.name} (${shortSubfield(n.subfield)})`;
}

/** `zone 65520 (SNAT)`, `zone 3`. */
export function zoneWords(n: NamedZone): string {
  return n.name === undefined ? `zone ${n.zone}` : `zone ${n.zone} (${n.name})`;
}
