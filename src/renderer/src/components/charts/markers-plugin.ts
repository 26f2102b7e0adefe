import type { Chart, Plugin } from 'chart.js';
import type { ChartMarker } from './chart-types.js';
import type { ChartTheme } from './theme-colors.js';

/**
 * Draws the markers as dashed vertical lines with their label at the top, over the datasets.
 * It reads the markers and theme at each draw, so updating them needs no new plugin or chart.
 */
export function markersPlugin(current: () => { markers: readonly ChartMarker[]; theme: ChartTheme }): Plugin {
  return {
    id: 'meshdesk-markers',
    afterDatasetsDraw(chart: Chart) {
      const { markers, theme } = current();
      const x = chart.scales.x;
      if (!x || markers.length === 0) return;
      const { top, bottom, left, right } = chart.chartArea;
      const context = chart.ctx;
      context.save();
      context.font = `500 10px ${theme.font}`;
      context.textBaseline = 'top';
      for (const marker of markers) {
        const at = x.getPixelForValue(marker.index);
        if (at < left || at > right) continue;
        context.strokeStyle = theme.color('--accent');
        context.lineWidth = 1;
        context.setLineDash([3, 3]);
        context.beginPath();
        context.moveTo(at, top);
        context.lineTo(at, bottom);
        context.stroke();
        context.setLineDash([]);
        const width = context.measureText(marker.label).width + 8;
        // Near the right edge the label goes to the left of its line.
        const labelX = at + width + 2 > right ? at - width - 2 : at + 2;
        context.fillStyle = theme.color('--accent-soft');
        context.fillRect(labelX, top + 2, width, 14);
        context.fillStyle = theme.color('--accent-text');
        context.fillText(marker.label, labelX + 4, top + 4);
      }
      context.restore();
    },
  };
}
