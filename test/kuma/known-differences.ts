// Every place where meshdesk knowingly differs from Kuma v2.14.3's golden data (../shared/kuma-cases),
// with the reason. The conformance tests (test/kuma/) fail on any difference not listed here, and on
// an entry that no longer matches anything, so this list stays the truth.

export interface KnownDifference {
  area: 'validation' | 'xds-names' | 'xds-structure' | 'xds-e2e';
  /** The case id, or '*' for every case of the area. */
  case: string;
  reason: string;
  /** xDS areas: a regex on the resource name; every resource when absent. */
  resource?: string;
  /** xDS areas: a regex on the leaf path (see test/kuma/support/xds-leaves.ts); '' is the resource itself. Every leaf when absent. */
  path?: string;
}

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [];
