import type { Finding, MeshAnalysis } from '../../shared/analysis-types.js';

/** `meshdesk analyze`'s text: one block per finding, worst first, then a count line. */
export function formatAnalysis(analysis: MeshAnalysis): string {
  const blocks = analysis.findings.map(formatFinding);
  const { error, warning, info } = analysis.counts;
  const summary =
    analysis.findings.length === 0
      ? `mesh ${analysis.mesh}: no findings`
      : `mesh ${analysis.mesh}: ${error} ${error === 1 ? 'error' : 'errors'}, ${warning} ${warning === 1 ? 'warning' : 'warnings'}, ${info} info`;
  return [...blocks, summary].join('\n\n');
}

function formatFinding(finding: Finding): string {
  const { type, name, field } = finding.location;
  const lines = [`${finding.severity} ${finding.code} ${type} ${name}${field ? ` ${field}` : ''}`, `  ${finding.message}`, `  fix: ${finding.fix}`];
  if (finding.proxies.length > 0) {
    const shown = finding.proxies.slice(0, 5).join(', ');
    lines.push(`  proxies: ${shown}${finding.proxies.length > 5 ? ` and ${finding.proxies.length - 5} more` : ''}`);
  }
  return lines.join('\n');
}
