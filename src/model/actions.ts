/** Typed action nodes. (Being filled in: see syntax/actions.ts.) */
export interface Action {
  readonly kind: string;
}
