/** Textual variants of example flows, for feeding the same pipeline to OVS in more shapes. */
import type { Example } from './make-examples.ts';

/** The flow lines of an add-flows file (comments and blank lines dropped). */
export function flowLines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
}

/**
 * Variants of the Antrea flows that exercise the attributes the document never uses: cookies,
 * timeouts, importance and flags, on a priority of their own so they coexist with the originals.
 * Timeouts are long so that nothing expires while the test runs.
 */
export function decorated(lines: readonly string[]): string[] {
  return lines.map((line, i) => {
    const extra = [`cookie=0x${(0x1000000000000n + BigInt(i) * 0x10001n).toString(16)}`];
    if (i % 3 === 0) extra.push(`idle_timeout=${3600 + i}`);
    if (i % 4 === 1) extra.push(`hard_timeout=${7200 + i}`);
    if (i % 5 === 2) extra.push(`importance=${i}`);
    if (i % 6 === 3) extra.push('send_flow_rem');
    if (i % 7 === 4) extra.push('no_byte_counts');
    return line.replace(/priority=(\d+)/, (_m, p: string) => `${extra.join(',')},priority=${Number(p) + 1}`);
  });
}

/** Port names → numbers, since `parse-flow` has no bridge and so no port map. */
export function numberPorts(line: string, example: Example): string {
  let out = line;
  for (const p of example.bridge.ports ?? []) {
    out = out
      .replaceAll(`"${p.name}"`, String(p.ofport))
      .replace(new RegExp(`([=:])${p.name}(?=[,\\s]|$)`, 'g'), `$1${p.ofport}`);
  }
  return out;
}

/** Other spellings of the same flow: aliases, expanded protocol keywords, default priority. */
export function respelled(line: string): string[] {
  const out = [
    line
      .replace(/\bnw_src=/g, 'ip_src=')
      .replace(/\bnw_dst=/g, 'ip_dst=')
      .replace(/\bdl_dst=/g, 'eth_dst=')
      .replace(/\bdl_src=/g, 'eth_src='),
    line
      .replace(/,tcp,/, ',ip,nw_proto=6,')
      .replace(/,udp,/, ',dl_type=0x0800,nw_proto=17,')
      .replace(/,arp,/, ',dl_type=0x0806,'),
    line.replace(/priority=\d+,?\s*/, ''),
    line.replace(/(nw_(?:src|dst)=\d+\.\d+\.\d+\.\d+)(?=[,\s])/, '$1/255.255.255.255'),
  ];
  return out.filter((l) => l !== line);
}
