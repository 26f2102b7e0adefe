/**
 * Texts a proxy chooses (NACK messages, node ids, type URLs) are kept in memory for as long as its
 * status is shown: they are clipped where they are stored, so that a proxy cannot make meshdesk
 * hold megabytes per message (20 proxies NACKing with 3 MB messages made `GET /proxies` 63 MB).
 */
export const CLIENT_TEXT_LIMITS = {
  /** An Envoy NACK names the resource and the rule it broke in well under a kilobyte. */
  message: 4096,
  /** A node id is `mesh.name`; Kuma names are at most 253 characters. */
  nodeId: 512,
  /** The longest type URL in Envoy's API is about 90 characters. */
  typeUrl: 256,
} as const;

/** `text` itself when within `limit` characters, else its start and how much was cut. */
export function clipClientText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… (${text.length - limit} more characters not kept)`;
}
