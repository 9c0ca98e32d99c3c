/** Graphviz's `dot`, run with an argument vector and the graph on standard input, for `graph --format svg`. */

/** Graphviz is not installed (or `dot` is not on the PATH). */
export class GraphvizMissingError extends Error {
  constructor() {
    super(
      'SVG output needs Graphviz’s dot program, which was not found: install Graphviz (Debian/Ubuntu: apt-get install graphviz; Fedora: dnf install graphviz; macOS: brew install graphviz), or use --format dot or --format mermaid',
    );
    this.name = 'GraphvizMissingError';
  }
}

/** DOT laid out as SVG by `dot -Tsvg`. */
export async function renderSvg(dot: string, dotProgram = 'dot'): Promise<string> {
  // Loaded only for SVG: it takes longer to load than most commands take to run.
  const { execa } = await import('execa');
  const r = await execa(dotProgram, ['-Tsvg'], { input: dot, reject: false, stripFinalNewline: false });
  if ((r as { code?: string }).code === 'ENOENT') throw new GraphvizMissingError();
  if (r.failed) throw new Error(`dot -Tsvg failed: ${String(r.stderr).trim() || r.shortMessage}`);
  return String(r.stdout);
}
