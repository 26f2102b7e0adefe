// `tsx bench/top-frames.ts <file.cpuprofile> [N]`: the N frames with the most self time, and the N
// with the most total time, of a V8 CPU profile (what `node --cpu-prof` writes).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function topFrames(file: string, count = 25): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const label = (node: ProfileNode) =>
    `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(node_modules|src|tools|bench)\//, '$1/')}:${node.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  for (const [id, us] of selfUs) {
    all += us;
    const node = byId.get(id)!;
    self.set(label(node), (self.get(label(node)) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at)!);
      if (seen.has(name)) continue; // recursion counts once
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + us);
    }
  }
  const table = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, us]) => `${((us / all) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`)
      .join('\n');
  return `profile ${file}: ${(all / 1000).toFixed(0)} ms sampled\n\nself time:\n${table(self)}\n\ntotal time:\n${table(total)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(topFrames(process.argv[2]!, Number(process.argv[3] ?? 25)));
}
