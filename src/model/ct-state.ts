/**
 * The connection-tracking state bits by the names Open vSwitch gives them (lib/packets.h CS_*),
 * as a match spells them: `ct_state=+est+trk`. Parser, trace and descriptions read them here.
 */
export const CT_STATE = {
  new: 0x01n,
  est: 0x02n,
  rel: 0x04n,
  rpl: 0x08n,
  inv: 0x10n,
  trk: 0x20n,
  snat: 0x40n,
  dnat: 0x80n,
} as const;
