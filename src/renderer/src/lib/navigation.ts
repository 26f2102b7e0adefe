// The app's sections, in sidebar order; shortcuts and routes come from this one list.

export interface Section {
  /** First route segment: `#/proxies`. */
  id: 'proxies' | 'cache' | 'sync' | 'resources' | 'policies' | 'services' | 'analysis' | 'connect' | 'settings';
  label: string;
  /** `g` then this key; the section's position is its number key. */
  key: string;
  /** An SVG path (24×24 viewBox, stroked). */
  icon: string;
}

export const SECTIONS: readonly Section[] = [
  { id: 'proxies', label: 'Proxies', key: 'p', icon: 'M4 6h16M4 12h16M4 18h10' },
  { id: 'cache', label: 'Cache', key: 'c', icon: 'M4 7c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3Zm0 0v10c0 1.7 3.6 3 8 3s8-1.3 8-3V7M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3' },
  { id: 'sync', label: 'Sync timing', key: 't', icon: 'M12 7v5l3 2M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0Z' },
  { id: 'resources', label: 'Resources', key: 'r', icon: 'M8 4H6a2 2 0 0 0-2 2v3m4-5h8m0 0h2a2 2 0 0 1 2 2v3M4 15v3a2 2 0 0 0 2 2h2m12-5v3a2 2 0 0 1-2 2h-2M9 12h6' },
  { id: 'policies', label: 'Policies', key: 'o', icon: 'M12 3 4 6v6c0 4.5 3.4 8.1 8 9 4.6-.9 8-4.5 8-9V6l-8-3ZM9 12l2 2 4-4' },
  { id: 'services', label: 'Services', key: 'v', icon: 'M5 7a2 2 0 1 0 0-.01M19 5a2 2 0 1 0 0-.01M19 19a2 2 0 1 0 0-.01M7 7h5l5-2M12 7l5 12' },
  { id: 'analysis', label: 'Analysis', key: 'a', icon: 'M10.3 4.3 2.6 17.6A2 2 0 0 0 4.3 20.6h15.4a2 2 0 0 0 1.7-3L13.7 4.3a2 2 0 0 0-3.4 0ZM12 9.5v4M12 17h0' },
  { id: 'connect', label: 'Connect a proxy', key: 'n', icon: 'M12 5v14M5 12h14' },
  { id: 'settings', label: 'Settings', key: 's', icon: 'M4 6h10M18 6h2M4 12h4M12 12h8M4 18h12M20 18h0M14 4v4M8 10v4M16 16v4' },
];
