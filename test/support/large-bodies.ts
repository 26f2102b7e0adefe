// The request bodies of issue 27 that stalled the event loop for seconds while they were parsed and
// validated: one just under the YAML limit, one just under the API's body limit. Both are Dataplanes
// Kuma accepts (tag names and values within its rules), so they are read all the way through.

/** Short unique tag names: `t0`, `t1`, … `tz`, `t10`, … in base 36. */
const tagNames = (count: number) => Array.from({ length: count }, (_, index) => `t${index.toString(36)}`);

/** A Dataplane with `tags` tags on its inbound, as YAML: 15,000 tags make some 250 KB. */
export function largeYamlDataplane(name: string, mesh = 'default', tags = 15_000): string {
  const lines = tagNames(tags).map((tag) => `      ${tag}: v${tag.slice(1, 4)}`);
  return [
    'type: Dataplane',
    `mesh: ${mesh}`,
    `name: ${name}`,
    'networking:',
    '  address: 127.0.0.1',
    '  inbound:',
    '  - port: 8080',
    '    tags:',
    '      kuma.io/service: big',
    ...lines,
    '',
  ].join('\n');
}

/** The same Dataplane with `tags` tags, as JSON: 60,000 tags make some 1 MB. */
export function largeJsonDataplane(name: string, mesh = 'default', tags = 60_000): string {
  const tagMap = Object.fromEntries([['kuma.io/service', 'big'], ...tagNames(tags).map((tag) => [tag, `val-${tag.slice(1)}`])]);
  // Another address than the YAML one's: the two are written side by side, and their inbounds must not clash.
  return JSON.stringify({ type: 'Dataplane', mesh, name, networking: { address: '127.0.0.2', inbound: [{ port: 8080, tags: tagMap }] } });
}
