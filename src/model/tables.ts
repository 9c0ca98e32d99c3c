/** A table as a flow names it: by number, or by the name OVS prints with `--names`. */
export type TableRef =
  | { readonly kind: 'number'; readonly number: number }
  | { readonly kind: 'name'; readonly name: string };

export function tableNumber(n: number): TableRef {
  return { kind: 'number', number: n };
}

export function sameTable(a: TableRef, b: TableRef): boolean {
  return a.kind === 'number' ? b.kind === 'number' && a.number === b.number : b.kind === 'name' && a.name === b.name;
}

export function tableLabel(t: TableRef): string {
  return t.kind === 'number' ? String(t.number) : t.name;
}
