/** Whose an address is, in words: `local Pod coredns5-8ec607`, `in peer Node subnet 10.10.1.0/24 via 192.168.77.101`. */
import type { AddressLabel, AddressOwner, AddressTag } from '../../analysis/annotate/address-book.ts';

const ROLE_WORDS: Readonly<Record<(AddressOwner & { readonly kind: 'role' | 'port' })['role'], string>> = {
  'local-pod': 'local Pod',
  gateway: 'gateway',
  'local-pod-subnet': 'local Pod subnet',
  'local-pods': 'subnet with local Pods',
  'cluster-network': 'cluster network',
  'peer-node-subnet': 'peer Node subnet',
  'peer-node': 'peer Node',
  'service-cidr': 'Service CIDR',
  service: 'Service address',
};

function ownerWords(o: AddressOwner): string {
  switch (o.kind) {
    case 'profile':
      return o.name;
    case 'port':
      return `${ROLE_WORDS[o.role]} ${'name' in o.port ? o.port.name : `port ${o.port.number}`}`;
    case 'role':
      return ROLE_WORDS[o.role];
  }
}

/** Said once per label: the address book gives every address of an entry, or inside its prefix, one label. */
const said = new WeakMap<AddressLabel, string>();

/** The label in words, the address not written out (except a prefix it lies in). */
export function addressLabelText(label: AddressLabel): string {
  let text = said.get(label);
  if (text === undefined) {
    const via = label.via === undefined ? '' : ` via ${label.via}`;
    text = label.inside === undefined ? ownerWords(label) + via : `in ${ownerWords(label)} ${label.inside}${via}`;
    said.set(label, text);
  }
  return text;
}

/** A tag as JSON: the address, its role and its label in words. */
export function addressTagJson(tag: AddressTag): { address: string; role: string; label: string } {
  return { address: tag.address, role: tag.role, label: addressLabelText(tag.label) };
}
