import { defaultsIn, list, object, type SpecShape } from '../core/spec-shape.js';

/** Kuma's IntOrString percentage (`12`, `"62.9"`). */
const percentage = 'int-or-string';

/** Kuma's MeshFaultInjection schema (rest.yaml): the `default` of each `to`, `from` and `rules` item. */
export const meshFaultInjectionSpecShape: SpecShape = defaultsIn(
  ['to', 'from', 'rules'],
  object({
    http: list(
      object({
        abort: object({ httpStatus: 'integer', percentage }),
        delay: object({ value: 'string', percentage }),
        // A number is read as its text, as Kuma's validator cases give it (`limit: 1000`, refused by its units).
        responseBandwidth: object({ limit: 'int-or-string', percentage }),
      }),
    ),
  }),
);
