import { readFileSync } from 'node:fs';

/** Linux reports utime and stime in clock ticks; USER_HZ is 100 on every mainstream kernel. */
const CLOCK_TICKS_PER_SECOND = 100;

/** One reading of another process's CPU time and resident memory, from /proc. */
export interface ProcessUsage {
  /** When it was read, performance.now() ms. */
  at: number;
  /** User + system CPU time since the process started, ms. */
  cpuMs: number;
  rssBytes: number;
}

/** Reads /proc/<pid>/stat and /proc/<pid>/status; throws naming the pid when the process is gone. */
export function readProcessUsage(pid: number): ProcessUsage {
  const at = performance.now();
  let stat: string;
  let status: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch (error) {
    throw new Error(`cannot read /proc/${pid} (is the meshdesk process ${pid} running, on Linux?): ${(error as Error).message}`);
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]); // field 14 of proc(5)
  const stime = Number(fields[12]); // field 15
  const rss = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!rss) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return { at, cpuMs: ((utime + stime) * 1000) / CLOCK_TICKS_PER_SECOND, rssBytes: Number(rss[1]) * 1024 };
}

/** Share of one core the process used between two readings, in percent. */
export function cpuPercent(from: ProcessUsage, to: ProcessUsage): number {
  return ((to.cpuMs - from.cpuMs) / (to.at - from.at)) * 100;
}
