/** Why a text is no packet, in words (a packet to trace, in ofproto/trace flow syntax). */
import type { PacketSpecProblem } from '../../analysis/trace/packet.ts';
import { didYouMean } from './spelling.ts';

export function packetSpecProblemText(p: PacketSpecProblem): string {
  switch (p.kind) {
    case 'unknown-field':
      return `${p.key}: unknown field or protocol${didYouMean(p.closest)}`;
    case 'missing-value':
      return `${p.key}: missing value`;
    case 'repeated-field':
      return `field ${p.key} set multiple times`;
    case 'bad-value':
      return p.reason;
    case 'unknown-port':
      return `${p.value}: unknown port name (neither the port map nor the flows name it)`;
    case 'wildcard':
      return `${p.key}=${p.value}: wildcards not allowed in a packet`;
    case 'prerequisite':
      return `prerequisites not met for setting ${p.field} (add the protocol, e.g. tcp, udp, ip, arp)`;
  }
}
