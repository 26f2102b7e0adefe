import type { Proxy } from '../../xds/generate/proxy.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { XDS_TYPE_URLS } from '../../xds/protocol/type-urls.js';
import type { EnvoyResources } from './envoy-resources.js';

/**
 * A string of a policy edit that is the proxy's own (MeshHealthCheck's `x-kuma-tags` is the
 * checking proxy's tags). An edit writes the marker where the value goes and leaves the proxy out
 * of its key, so every proxy shares the edited resource — and every later plugin's edit of it, and
 * its encoded bytes — where a per-proxy value would make all of them per proxy. `bindProxyValues`
 * writes each proxy's value last, copying only the path from the resource to the marker.
 */
export class ProxyBoundValue {
  constructor(
    /** What the value is, for an error that finds a marker left unbound. */
    readonly description: string,
    readonly valueFor: (proxy: Proxy) => string,
  ) {
    Object.freeze(this);
  }

  /** An unbound marker reaching the encoder is named by its description. */
  toJSON(): string {
    return `<unbound: ${this.description}>`;
  }
}

/** A marker and where it is: the keys and indexes from the resource to it. */
interface BoundSlot {
  path: readonly (string | number)[];
  marker: ProxyBoundValue;
}

const NO_SLOTS: readonly BoundSlot[] = Object.freeze([]);
const slotsByObject = new WeakMap<object, readonly BoundSlot[]>();

/**
 * Where the markers of a (frozen, shared) value are, found once per object. Written to allocate
 * nothing for the usual part without markers: every proxy's own edited resources are searched.
 */
function slotsOf(value: unknown): readonly BoundSlot[] {
  if (typeof value !== 'object' || value === null) return NO_SLOTS;
  if (value instanceof ProxyBoundValue) return [{ path: [], marker: value }];
  if (ArrayBuffer.isView(value)) return NO_SLOTS;
  const known = slotsByObject.get(value);
  if (known !== undefined) return known;
  let slots: BoundSlot[] | undefined;
  const collect = (key: string | number, child: unknown) => {
    if (typeof child !== 'object' || child === null) return;
    for (const slot of slotsOf(child)) (slots ??= []).push({ path: [key, ...slot.path], marker: slot.marker });
  };
  if (Array.isArray(value)) for (let index = 0; index < value.length; index++) collect(index, value[index]);
  else for (const key of Object.keys(value)) collect(key, (value as Record<string, unknown>)[key]);
  const found = slots ?? NO_SLOTS;
  slotsByObject.set(value, found);
  return found;
}

/** Bound copies by resource and by the values written: proxies with equal values share one object. */
const boundByResource = new WeakMap<ProtoJson, Map<string, ProtoJson>>();

/**
 * Writes this proxy's value in place of every marker of its resources. A resource without markers
 * stays the very object it is; one with markers becomes a copy made once per resource and values.
 */
export function bindProxyValues(resources: EnvoyResources, proxy: Proxy): void {
  const bind = proxyBinder(proxy);
  for (const typeUrl of XDS_TYPE_URLS) {
    // The generators write no markers: only what a plugin put can hold one.
    for (const { name, resource } of resources.listPut(typeUrl)) {
      const bound = bind(resource);
      if (bound !== resource) resources.put(typeUrl, name, bound);
    }
  }
}

/** What bindProxyValues makes of each resource for this proxy. */
export function proxyBinder(proxy: Proxy): (resource: ProtoJson) => ProtoJson {
  const values = new Map<ProxyBoundValue, string>();
  const valueOf = (marker: ProxyBoundValue) => {
    let value = values.get(marker);
    if (value === undefined) values.set(marker, (value = marker.valueFor(proxy)));
    return value;
  };
  return (resource) => {
    const slots = slotsOf(resource);
    if (slots.length === 0) return resource;
    const written = slots.map((slot) => valueOf(slot.marker));
    const key = written.join('\0');
    let byValues = boundByResource.get(resource);
    if (byValues === undefined) boundByResource.set(resource, (byValues = new Map()));
    let bound = byValues.get(key);
    if (bound === undefined) {
      bound = slots.reduce<ProtoJson>((copy, slot, index) => withValueAt(copy, resource, slot.path, written[index]!), resource);
      byValues.set(key, bound);
    }
    return bound;
  };
}

/**
 * `value` at `path` of `copy`, copying each object on the path that is still `original`'s (so that
 * several slots of one resource share the copies made for the first).
 */
function withValueAt(copy: unknown, original: unknown, path: readonly (string | number)[], value: string): ProtoJson {
  if (path.length === 0) return value as unknown as ProtoJson;
  const [key, ...rest] = path as [string | number, ...(string | number)[]];
  const source = copy as Record<string | number, unknown>;
  const child = withValueAt(source[key], (original as Record<string | number, unknown>)[key], rest, value);
  if (copy !== original) {
    source[key] = child;
    return copy as ProtoJson;
  }
  const next = Array.isArray(copy) ? [...copy] : { ...(copy as object) };
  (next as Record<string | number, unknown>)[key] = child;
  return next as ProtoJson;
}
