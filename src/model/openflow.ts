/** OpenFlow protocol versions, as the `-O OpenFlow1N` option and dump headers name them. */
export type OfVersion = 10 | 11 | 12 | 13 | 14 | 15;

export const OF_VERSIONS: readonly OfVersion[] = [10, 11, 12, 13, 14, 15];

export function parseOfVersion(text: string): OfVersion | undefined {
  const m = /^(?:openflow|of)?1?\.?([0-5])$/i.exec(text.trim());
  if (!m) return undefined;
  return (10 + Number(m[1])) as OfVersion;
}
