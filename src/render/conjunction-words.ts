/**
 * The conjunction report in a pipeline's words: its table names, the values of registers its
 * profile names (a port register as the Pod on that port), and what action flows do as the
 * profile explains them.
 */
import type { Annotator } from '../analysis/annotate.ts';
import type { FieldDef } from '../model/fields.ts';
import type { TableRef } from '../model/tables.ts';
import { fullMask } from '../syntax/field-value.ts';
import { type ConjunctionWords, type FieldWords, actionsText } from './conjunctions.ts';

export function pipelineWords(annotator: Annotator): ConjunctionWords {
  return {
    tableName: (ref) => annotator.tableInfo(ref).name,
    field: (field, table) => wholeFieldWords(annotator, field, table),
    actionFlow: (flow) => {
      const { actions, explanation } = annotator.describe(flow);
      return explanation ? { actions: actionsText(actions), meaning: explanation.meaning } : { actions: actionsText(actions) };
    },
  };
}

/** Words for a field that one bit field of the profile covers whole, read as `table` uses it. */
function wholeFieldWords(annotator: Annotator, field: FieldDef, table: TableRef): FieldWords | undefined {
  const { bits } = annotator;
  const decoded = bits.decode(field, 0n, fullMask(field), annotator.tableInfo(table).spec);
  const only = decoded.length === 1 ? decoded[0]! : undefined;
  const span = only && only.start === 0 && only.end >= field.bits - 1 ? bits.byName(only.name) : undefined;
  return span ? { name: span.name, value: (v) => bits.valueWords(span, v) } : undefined;
}
