/** Why a selection of `show` can select nothing in the dump, in a sentence. */
import type { FilterProblem } from '../../analysis/show/flow-filter.ts';
import { didYouMean } from './spelling.ts';

export function filterProblemText(p: FilterProblem): string {
  switch (p.kind) {
    case 'table-out-of-range':
      return `table ${p.table}: table numbers go from 0 to 254`;
    case 'table-without-flows':
      return `table ${p.table} has no flows in the dump`;
    case 'unknown-table':
      return `no table is named ${p.table}${didYouMean(p.closest)} (the dump's tables: ${p.tables.join(', ')})`;
    case 'unnumbered-port':
      return `port ${p.port}: the flows name their ports and nothing gives their numbers; select by name, or give --ports (ovs-ofctl show output)`;
    case 'unknown-port':
      return `no port is named ${p.port}${didYouMean(p.closest)} in the flows${p.portMap ? ' or the port map' : ' (give --ports with ovs-ofctl show output to know port names)'}`;
    case 'no-packet-counts':
      return '--hits: the dump has no packet counts (dumped with --no-stats?), so no flow shows hits';
  }
}
