/** Pipeline state in words: `PktSource = FromLocal (sent by a local Pod)`, `not OFPortFound`, `reg0[16] = 1`. */
import type { BitsValue, DecodedBits } from '../../analysis/annotate/bit-fields.ts';
import type { StateReading } from '../../analysis/annotate/wording.ts';
import type { FieldDef } from '../../model/fields.ts';
import { formatIpv4, formatIpv6, ones } from '../../model/values.ts';
import { portWords } from './port.ts';
import { shortSubfield } from './names.ts';

const hex = (v: bigint): string => `0x${v.toString(16)}`;

/** The value alone, as a sentence shows it: the named value, else the value in its format. */
export function bitsValueWords(r: BitsValue): string {
  if (r.valueName !== undefined && r.format !== 'flag') return r.valueName;
  switch (r.format) {
    case 'flag':
      return r.valueName ?? String(r.value);
    case 'bitmask':
      return r.names.length > 0 ? r.names.join('|') : hex(r.value);
    case 'port':
      return portWords(r.port);
    case 'ipv4':
      return formatIpv4(r.value);
    case 'ipv6':
      return formatIpv6(r.value);
    case 'table':
      return r.tableName === undefined ? `table ${r.value}` : `${r.tableName} (table ${r.value})`;
    case 'group':
      return `group ${r.value}`;
    case 'node':
      return r.node === undefined ? hex(r.value) : `Node ${r.node} (${hex(r.value)})`;
    case 'hex':
      return hex(r.value);
    case 'enum':
    case 'number':
      return String(r.value);
  }
}

/**
 * `PktSource = FromLocal (sent by a local Pod)`, `OFPortFound (…)`, `not OFPortFound`, `PktSource bits 0x3 = 0x1`.
 * Said each time, not remembered by piece: most pieces are of values said once (an Endpoint's
 * address and port in a register), whose words their callers keep, and remembering each cost more
 * than saying again the few that come back.
 */
export function bitsWords(d: DecodedBits): string {
  if (d.partial) return `${d.name} bits ${hex(d.given)} = ${hex(d.value)}`;
  const meaning = d.meaning === undefined ? '' : ` (${d.meaning})`;
  if (d.format === 'flag') return d.value === 1n ? `${d.name}${meaning}` : `not ${d.name}${meaning}`;
  return `${d.name} = ${bitsValueWords(d)}${meaning}`;
}

/** Bits under a contiguous mask as `reg0[16] = 1`; other masks as `reg0 & 0xf0f = 0x101`. */
export function maskedBits(field: FieldDef, value: bigint, mask: bigint): string {
  if (mask === ones(field.bits)) return `${field.name} = ${hex(value)}`;
  const low = mask === 0n ? 0 : (mask & -mask).toString(2).length - 1;
  const run = mask >> BigInt(low);
  if ((run & (run + 1n)) === 0n) {
    const bits = run.toString(2).length;
    const v = value >> BigInt(low);
    return `${shortSubfield({ field, start: low, bits })} = ${bits === 1 ? v.toString() : hex(v)}`;
  }
  return `${field.name} & ${hex(mask)} = ${hex(value)}`;
}

/** Named state in a field's bits: pieces that share bits as alternatives (`A or B`), other bits as registers. */
export function stateWords(r: StateReading): string {
  const words = r.groups.map((g) => g.map(bitsWords).join(' or '));
  if (r.rest !== undefined) words.push(maskedBits(r.field, r.rest.value, r.rest.mask));
  return words.join(', ');
}
