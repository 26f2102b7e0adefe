import { Session } from 'node:inspector';

/**
 * How much JavaScript `work` executes, counted by V8's block coverage: every function call and
 * every block (a loop body once per iteration) in this process, ours and our dependencies'. A
 * count, not a time, so comparing the counts of two input sizes tells linear from quadratic on a
 * loaded machine. Built-ins (Array.prototype.some's own loop, Set.has) are not counted; the
 * callbacks they call are.
 *
 * V8 only puts block counters into functions compiled while coverage is on, so it starts when this
 * module loads: import it before the code it measures.
 */
export function countOperations(work: () => void): number {
  post(session, 'Profiler.takePreciseCoverage'); // resets the counters
  work();
  const { result } = post(session, 'Profiler.takePreciseCoverage') as { result: ScriptCoverage[] };
  let count = 0;
  for (const script of result) for (const fn of script.functions) for (const range of fn.ranges) count += range.count;
  return count;
}

const session = new Session();
session.connect();
post(session, 'Profiler.enable');
post(session, 'Profiler.startPreciseCoverage', { callCount: true, detailed: true });

interface ScriptCoverage {
  functions: { ranges: { count: number }[] }[];
}

/** The same-thread inspector answers synchronously: the callback has run when `post` returns. */
function post(session: Session, method: string, params?: object): unknown {
  let answer: { error: Error | null; result: unknown } | undefined;
  session.post(method, params ?? {}, (error, result) => {
    answer = { error, result };
  });
  if (answer === undefined) throw new Error(`the inspector did not answer ${method} synchronously`);
  if (answer.error) throw answer.error;
  return answer.result;
}
