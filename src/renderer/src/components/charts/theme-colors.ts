// Canvas cannot read CSS variables: charts name their colours by variable (`--ok`) and resolve them here, per theme.

/** The theme colours every chart uses for its axes, grid, text and tooltips, read from `element`'s CSS variables. */
export interface ChartTheme {
  text: string;
  muted: string;
  faint: string;
  grid: string;
  surface: string;
  tooltipBg: string;
  tooltipText: string;
  font: string;
  /** A colour variable's value, optionally with an alpha (0–1). */
  color(variable: string, alpha?: number): string;
}

export function readChartTheme(element: Element): ChartTheme {
  const style = getComputedStyle(element);
  const read = (variable: string) => style.getPropertyValue(variable).trim();
  return {
    text: read('--text'),
    muted: read('--text-muted'),
    faint: read('--text-faint'),
    grid: read('--border'),
    surface: read('--surface'),
    tooltipBg: read('--tooltip-bg'),
    tooltipText: read('--tooltip-text'),
    font: read('--font-ui'),
    color: (variable, alpha = 1) => withAlpha(read(variable), alpha),
  };
}

/** `#rrggbb` with an alpha as `rgb(r g b / a)`; any other colour is returned as it is. */
function withAlpha(color: string, alpha: number): string {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (!match || alpha >= 1) return color;
  const [r, g, b] = match.slice(1).map((hex) => parseInt(hex, 16));
  return `rgb(${r} ${g} ${b} / ${alpha})`;
}

/**
 * Calls `onchange` whenever the theme may have changed: the root's `data-theme` attribute (the
 * app's toggle) or the system colour scheme. Returns the stop function.
 */
export function watchTheme(onchange: () => void): () => void {
  const observer = new MutationObserver(onchange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  const scheme = matchMedia('(prefers-color-scheme: dark)');
  scheme.addEventListener('change', onchange);
  return () => {
    observer.disconnect();
    scheme.removeEventListener('change', onchange);
  };
}
