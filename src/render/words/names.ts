/** A subfield and a conntrack zone in words, with the pipeline's name for them when it has one. */
import { type NamedSubfield, type NamedZone, shortSubfield } from '../../analysis/annotate/wording.ts';

/** `TargetOFPort (reg1)`, `reg0[0..3]`. */
export function subfieldWords(n: NamedSubfield): string {
  return n.name === undefined ? shortSubfield(n.subfield) : `${n.name} (${shortSubfield(n.subfield)})`;
}

/** `zone 65520 (SNAT)`, `zone 3`. */
export function zoneWords(n: NamedZone): string {
  return n.name === undefined ? `zone ${n.zone}` : `zone ${n.zone} (${n.name})`;
}
