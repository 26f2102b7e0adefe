// What a view gives the Chart component: plain data, colours named by CSS variable.

export interface ChartSeries {
  label: string;
  /** A theme colour variable, e.g. `--ok`: the chart resolves it, and again when the theme changes. */
  color: string;
  data: (number | null)[];
}

/** A vertical line across the chart at a category index, labelled (e.g. "TTL 1s → 250ms"). */
export interface ChartMarker {
  index: number;
  label: string;
}
