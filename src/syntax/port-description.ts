/**
 * Port descriptions as `ovs-ofctl show` and `dump-ports-desc` print them (and a support bundle's
 * `ovsports`, the same lines trimmed): a head line per port, then its details.
 */
import { type PortMap, RESERVED_PORT_NUMBERS } from '../model/ports.ts';

/** `  3(coredns5-8ec607): addr:aa:55:aa:55:00:04`, `LOCAL(br-int): addr:…`. */
const PORT_LINE = /^\s*(\d+|LOCAL)\((.*)\): addr:/;

/** A detail saying the port is down: `config: PORT_DOWN` (administratively) or `state: LINK_DOWN`. */
const DOWN_LINE = /^\s*(?:config:.*\bPORT_DOWN\b|state:.*\bLINK_DOWN\b)/;

/**
 * What a line that `read` makes use of holds: `): addr:` (a head line), PORT_DOWN or LINK_DOWN (a
 * detail). Other lines change nothing, so a whole text is read by visiting only the lines that
 * hold one, found with indexOf instead of a pattern tried on each of a million lines.
 */
const MARKERS = ['): addr:', 'PORT_DOWN', 'LINK_DOWN'] as const;

/**
 * Where the next head marker (`): addr:`) is from `from` on, or -1: found by its `: addr`, which
 * indexOf finds several times faster in a large flow dump (whose lines hold many parentheses).
 */
function headMarkerAt(text: string, from: number): number {
  for (let at = text.indexOf(': addr', from + 1); at >= 0; at = text.indexOf(': addr', at + 1))
    if (text.startsWith(MARKERS[0], at - 1)) return at - 1;
  return -1;
}

/** Reads port descriptions line by line into a port map. */
export class PortDescriptionReader {
  private readonly map: PortMap;
  /** The port whose details follow. */
  private current: number | undefined;

  constructor(map: PortMap) {
    this.map = map;
  }

  /**
   * Takes one line: 'port' for a head line that maps a port, 'detail' for LOCAL's head line or a
   * detail saying a port is down, undefined for any other line.
   */
  read(line: string): 'port' | 'detail' | undefined {
    const head = PORT_LINE.exec(line);
    if (head) {
      // LOCAL is a reserved port, not a mapping; its state still counts.
      if (head[1] === 'LOCAL') {
        this.current = RESERVED_PORT_NUMBERS.LOCAL;
        return 'detail';
      }
      this.current = Number(head[1]);
      this.map.set(this.current, head[2]!);
      return 'port';
    }
    if (this.current !== undefined && DOWN_LINE.test(line)) {
      this.map.setDown(this.current);
      return 'detail';
    }
    return undefined;
  }

  /** Takes each line of `text` (ended by LF or CRLF) in order, as `read` would take them all. */
  readText(text: string): void {
    const head = headMarkerAt(text, 0);
    // A detail counts only after a head line: a text without one (most dumps) is passed over once.
    const next = MARKERS.map((m, i) => (head < 0 ? -1 : i === 0 ? head : text.indexOf(m, head)));
    for (;;) {
      let at = -1;
      for (const n of next) if (n >= 0 && (at < 0 || n < at)) at = n;
      if (at < 0) return;
      const start = text.lastIndexOf('\n', at) + 1;
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      this.read(
        text.slice(start, end > start && text.charCodeAt(end - 1) === 0x0d && end < text.length ? end - 1 : end),
      );
      for (let i = 0; i < MARKERS.length; i++)
        if (next[i]! >= 0 && next[i]! < end)
          next[i] = i === 0 ? headMarkerAt(text, end) : text.indexOf(MARKERS[i]!, end);
    }
  }
}
