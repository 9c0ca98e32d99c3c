/**
 * Port number ↔ name maps from port descriptions: `ovs-ofctl show`, `dump-ports-desc`, and a
 * support bundle's `ovsports` (the same text with every line trimmed and the header dropped).
 */
import { PortMap } from '../model/ports.ts';

/** `  3(coredns5-8ec607): addr:aa:55:aa:55:00:04`; LOCAL is a reserved port, not a mapping. */
const PORT_LINE = /^\s*(\d+)\((.+)\): addr:/;

/** The ports described in `text`; an empty map when there are none. */
export function readPortDescriptions(text: string): PortMap {
  const map = new PortMap();
  for (const line of text.split(/\r?\n/)) {
    const m = PORT_LINE.exec(line);
    if (m) map.set(Number(m[1]), m[2]!);
  }
  return map;
}

/** One map holding every entry of `maps`; later maps win where they disagree. */
export function mergePortMaps(maps: readonly PortMap[]): PortMap {
  const out = new PortMap();
  for (const m of maps) for (const [n, name] of m.entries()) out.set(n, name);
  return out;
}
