/**
 * Port number ↔ name maps from port descriptions: `ovs-ofctl show`, `dump-ports-desc`, and a
 * support bundle's `ovsports` (the same text with every line trimmed and the header dropped).
 */
import { PortMap } from '../model/ports.ts';
import { PortDescriptionReader } from '../syntax/port-description.ts';

/** The ports described in `text`, with those it says are down; an empty map when there are none. */
export function readPortDescriptions(text: string): PortMap {
  const map = new PortMap();
  new PortDescriptionReader(map).readText(text);
  return map;
}

/** One map holding every entry of `maps`; later maps win where they disagree. */
export function mergePortMaps(maps: readonly PortMap[]): PortMap {
  const out = new PortMap();
  for (const m of maps) out.addAll(m);
  return out;
}
