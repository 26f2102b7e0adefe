// Colours (theme variables) and words for the series the Sync timing view draws; charts and tables share them.
import type { FirstConfigPhaseName } from '../../../../shared/api-types.js';
import type { TickResult } from '../../../../shared/proxy-events.js';
import type { ConnectStrategy } from '../../../../shared/stats-types.js';

/** The first-config phases in the order they happen: the one phase → colour map of every view (Sync timing, the Timeline tab). */
export const PHASES: readonly { name: FirstConfigPhaseName; label: string; color: string }[] = [
  { name: 'registration', label: 'registration', color: '--text-faint' },
  { name: 'post-create-wait', label: 'post-create wait', color: '--warn' },
  { name: 'certificate-issuance', label: 'certificate issuance', color: '--identity' },
  { name: 'first-generation', label: 'first generation', color: '--accent' },
  { name: 'dataplane-not-found', label: 'Dataplane not found', color: '--err' },
  { name: 'first-responses', label: 'responses', color: '--info' },
  { name: 'first-acks', label: 'ACKs', color: '--ok' },
];

/** PHASES by name. */
export const PHASE_STYLE = Object.fromEntries(PHASES.map((phase) => [phase.name, phase])) as Readonly<
  Record<FirstConfigPhaseName, (typeof PHASES)[number]>
>;

export const TICK_COLORS: Readonly<Record<TickResult, string>> = {
  skip: '--text-faint',
  generated: '--info',
  changed: '--ok',
  'dataplane-not-found': '--warn',
  error: '--err',
};

export const XDS_TYPE_COLORS: Readonly<Record<string, string>> = { cds: '--accent', eds: '--info', lds: '--ok', rds: '--warn' };

export const STRATEGIES: Readonly<Record<ConnectStrategy, { label: string; title: string }>> = {
  sleep: { label: 'sleep', title: 'Registered through metadata; slept one cache expiration time before the first generation' },
  invalidate: { label: 'invalidate', title: 'Registered through metadata; dropped the cached Dataplane and MeshContext instead of sleeping' },
  none: { label: 'none', title: 'Registered through metadata; no wait: the first generation may miss the new Dataplane' },
  api: { label: 'API-created', title: 'The proxy found its Dataplane, created through the API or UI, when it connected: no wait' },
};
