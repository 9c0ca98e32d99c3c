/**
 * The exit status a command chose without failing: diff-style commands end with 1 when they
 * found differences (0 none, 2 trouble), after writing their full report.
 */
export class Outcome {
  status = 0;
}
