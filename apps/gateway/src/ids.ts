import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

/** Sortable unique ids with a short prefix: `sub_` for submissions, `con_` for contacts. */
export function newId(prefix: 'sub' | 'con'): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}
