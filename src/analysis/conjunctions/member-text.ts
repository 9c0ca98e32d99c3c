/**
 * A member of a conjunction's value set as text, in the syntax of its field: `10.10.1.0/24`,
 * `10.10.0.3-10.10.0.9`, `8080-8090`, `0x50/0xfff0`. Reports show it, and a NetworkPolicy rule's
 * peers and ports are compared with it.
 */
import type { FieldDef } from '../../model/fields.ts';
import { formatIpv4, formatIpv6 } from '../../model/values.ts';
import { formatFieldValue, fullMask } from '../../syntax/field-value.ts';
import type { Member } from './conjunctions.ts';

function formatAddress(field: FieldDef, v: bigint): string {
  return field.format === 'ipv4' ? formatIpv4(v) : formatIpv6(v);
}

function isAddress(field: FieldDef): boolean {
  return field.format === 'ipv4' || field.format === 'ipv6';
}

/** How a member writes one whole value of a field that holds no address (see memberText). */
export type MemberNumbers = 'field' | 'decimal';

/**
 * `numbers: 'decimal'` writes one whole value of a field that holds no address as a decimal
 * number, as a policy gives a port (a register holding an OpenFlow port number is `0x3` to OVS).
 */
export function memberText(field: FieldDef, m: Member, numbers: MemberNumbers = 'field'): string {
  switch (m.kind) {
    case 'value':
      return numbers === 'decimal' && !isAddress(field) && m.mask === fullMask(field)
        ? String(m.value)
        : formatFieldValue(field, m.value, m.mask);
    case 'prefix':
      return m.length === field.bits ? formatAddress(field, m.value) : `${formatAddress(field, m.value)}/${m.length}`;
    case 'range':
      return isAddress(field)
        ? `${formatAddress(field, m.first)}-${formatAddress(field, m.last)}`
        : `${m.first}-${m.last}`;
  }
}
