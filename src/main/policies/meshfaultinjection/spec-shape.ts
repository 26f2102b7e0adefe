import { defaultsIn, list, object, type SpecShape } from '../core/spec-shape.js';
import { servedDuration, servedInteger } from '../core/served-value.js';

/** Kuma's IntOrString percentage (`12`, `"62.9"`). */
const percentage = 'int-or-string';

/** Kuma's MeshFaultInjection schema (rest.yaml): the `default` of each `to`, `from` and `rules` item. */
export const meshFaultInjectionSpecShape: SpecShape = defaultsIn(
  ['to', 'from', 'rules'],
  object({
    http: list(
      object({
        // A 1xx abort is accepted and reported as not applied (fault.ts), as Kuma accepts it.
        abort: object({ httpStatus: servedInteger('int32'), percentage }),
        delay: object({ value: servedDuration('envoy.extensions.filters.common.fault.v3.FaultDelay.fixed_delay'), percentage }),
        // A number is read as its text, as Kuma's validator cases give it (`limit: 1000`, refused by its units).
        responseBandwidth: object({ limit: 'int-or-string', percentage }),
      }),
    ),
  }),
);
