// Pure formatting of durations and times for dense tables: short, fixed precision, units a developer reads at a glance.

/** `850 µs`, `12.3 ms`, `1.00 s`, `2m 05s`, `3h 04m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const abs = Math.abs(ms);
  const sign = ms < 0 ? '-' : '';
  if (abs < 1) return `${sign}${Math.round(abs * 1000)} µs`;
  if (abs < 10) return `${sign}${abs.toFixed(2)} ms`;
  if (abs < 1000) return `${sign}${abs.toFixed(abs < 100 ? 1 : 0)} ms`;
  if (abs < 60_000) return `${sign}${(abs / 1000).toFixed(2)} s`;
  const totalSeconds = Math.floor(abs / 1000);
  if (totalSeconds < 3600) return `${sign}${Math.floor(totalSeconds / 60)}m ${pad(totalSeconds % 60)}s`;
  const totalMinutes = Math.floor(totalSeconds / 60);
  if (totalMinutes < 24 * 60) return `${sign}${Math.floor(totalMinutes / 60)}h ${pad(totalMinutes % 60)}m`;
  return `${sign}${Math.floor(totalMinutes / 1440)}d ${pad(Math.floor((totalMinutes % 1440) / 60))}h`;
}

/** A cache expiration: `0 s (caching off)`, since 0 keeps nothing (not `0 µs`), else `1.00 s`. */
export function formatCacheExpiration(ms: number): string {
  return ms === 0 ? '0 s (caching off)' : formatDuration(ms);
}

/** A cache expiration as a title: `1.00 s expiration`, or `0 s (caching off)`. */
export function formatExpirationTitle(ms: number): string {
  return ms === 0 ? formatCacheExpiration(ms) : `${formatDuration(ms)} expiration`;
}

/** How long ago `at` was, coarse: `just now`, `12s ago`, `4m ago`, `2h ago`, `3d ago`. */
export function formatAgo(at: number, now: number): string {
  const seconds = Math.max(0, Math.floor((now - at) / 1000));
  if (seconds < 2) return 'just now';
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/** How long until `at`, coarse, for countdowns: `8s`, `4m 05s`, `2h 10m`; `0s` once it has passed. */
export function formatLeft(at: number, now: number): string {
  const seconds = Math.max(0, Math.ceil((at - now) / 1000));
  if (seconds < 60) return `${seconds}s`;
  return formatDuration(seconds * 1000);
}

/** Local wall-clock time with milliseconds, for event lists: `14:02:11.482`. */
export function formatClock(at: number): string {
  return `${formatTimeOfDay(at)}.${String(new Date(at).getMilliseconds()).padStart(3, '0')}`;
}

/** Local time to the second: `14:02:11`. */
export function formatTimeOfDay(at: number): string {
  const date = new Date(at);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** Local date and time for tooltips: `2026-12-02 14:02:11`. */
export function formatDateTime(at: number): string {
  const date = new Date(at);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
