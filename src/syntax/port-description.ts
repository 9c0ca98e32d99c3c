/**
 * Port descriptions as `ovs-ofctl show` and `dump-ports-desc` print them (and a support bundle's
 * `ovsports`, the same lines trimmed): a head line per port, then its details.
 */
import { type PortMap, RESERVED_PORT_NUMBERS } from '../model/ports.ts';

/** `  3(coredns5-8ec607): addr:aa:55:aa:55:00:04`, `LOCAL(br-int): addr:…`. */
const PORT_LINE = /^\s*(\d+|LOCAL)\((.*)\): addr:/;

/** A detail saying the port is down: `config: PORT_DOWN` (administratively) or `state: LINK_DOWN`. */
const DOWN_LINE = /^\s*(?:config:.*\bPORT_DOWN\b|state:.*\bLINK_DOWN\b)/;

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
}
