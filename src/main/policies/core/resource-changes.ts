import type { GeneratedResources } from '../../xds/generate/resources.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { XDS_TYPE_URLS, type XdsTypeUrl } from '../../xds/protocol/type-urls.js';
import type { PluginRun } from './plugin-replay.js';
import { sameFieldsSet } from './resource-recording.js';

/**
 * Where a proxy's resources, at one point of its generation (after the profile, after each
 * plugin), differ from its last generation's at the same point: names by type whose value (or the
 * fields policies set in it) differ. Only values: when which names there are differs, or a plugin
 * writes elsewhere than last time, there is no change set and generation goes the whole way.
 *
 * A plugin whose inputs are the same and that read none of these makes the very writes of its last
 * run; when every plugin left is such, the generation is the last one with these resources changed.
 */
export class ResourceChanges {
  readonly #byType = new Map<XdsTypeUrl, Set<string>>();
  /** Whether a plugin wrote something else than last time: then the fields policies set differ too. */
  #writesDiffer = false;

  /** Where the profile's resources differ from the last generation's; undefined when their names differ. */
  static between(last: GeneratedResources, now: GeneratedResources): ResourceChanges | undefined {
    const changes = new ResourceChanges();
    for (const typeUrl of XDS_TYPE_URLS) {
      const [before, after] = [last[typeUrl], now[typeUrl]];
      if (before === after) continue;
      if (before.length !== after.length) return undefined;
      for (let at = 0; at < after.length; at++) {
        const [was, is] = [before[at]!, after[at]!];
        if (was.name !== is.name) return undefined;
        if (was.resource !== is.resource) changes.#add(typeUrl, is.name);
      }
    }
    return changes;
  }

  has(typeUrl: XdsTypeUrl, name: string): boolean {
    return this.#byType.get(typeUrl)?.has(name) ?? false;
  }

  /** The changed names of each type (a set may be empty). */
  byType(): Iterable<readonly [XdsTypeUrl, ReadonlySet<string>]> {
    return this.#byType;
  }

  hasAny(typeUrl: XdsTypeUrl): boolean {
    return (this.#byType.get(typeUrl)?.size ?? 0) > 0;
  }

  get writesDiffer(): boolean {
    return this.#writesDiffer;
  }

  /**
   * The changes after a plugin's `run`, given `last`, its run at the same point of the last
   * generation, and the resources after `run` (`valueNow`). A write of the very same thing makes
   * its resource equal again, any other adds it. Runs that wrote in different places still leave
   * a change set when both only replaced resources: a resource the last run wrote is changed unless
   * it is now what that run left; one only this run wrote, changed. Undefined otherwise (a run not
   * recorded, or that added, removed or renamed resources elsewhere than the other).
   */
  after(last: PluginRun | undefined, run: PluginRun | undefined, valueNow: (typeUrl: XdsTypeUrl, name: string) => ProtoJson | undefined): ResourceChanges | undefined {
    if (last === undefined || run === undefined || last.resources.renames || run.resources.renames) return undefined;
    if (run === last) {
      this.writtenAgainBy([run]);
      return this;
    }
    const alike = run.resources.writesAlike(last.resources, (typeUrl, name, same) => {
      if (same) this.#byType.get(typeUrl)?.delete(name);
      else this.#changed(typeUrl, name);
    });
    if (alike) return this;
    if (!run.resources.replacesOnly || !last.resources.replacesOnly) return undefined;
    const [before, now] = [last.resources.puts(), run.resources.puts()];
    for (const [typeUrl, puts] of before) {
      for (const [name, put] of puts) {
        // Equal again only when both put it once, the same resource with the same fields set (what a policy set is read too).
        const again = now.get(typeUrl)?.get(name);
        const equal = again === undefined ? put.count === 1 && put.set.length === 0 && valueNow(typeUrl, name) === put.resource : put.count === 1 && again.count === 1 && again.resource === put.resource && sameFieldsSet(again.set, put.set);
        if (equal) this.#byType.get(typeUrl)?.delete(name);
        else this.#add(typeUrl, name);
      }
    }
    for (const [typeUrl, puts] of now) for (const name of puts.keys()) if (!before.get(typeUrl)?.has(name)) this.#add(typeUrl, name);
    // The fields policies set are another list now, whatever the values.
    this.#writesDiffer = true;
    return this;
  }

  /** Drops what `runs`, replayed, write again: after them those resources are what they were last time. */
  writtenAgainBy(runs: readonly PluginRun[]): void {
    for (const [typeUrl, changed] of this.#byType) {
      for (const name of changed) if (runs.some((run) => run.resources.writtenNames().get(typeUrl)?.has(name))) changed.delete(name);
    }
  }

  #changed(typeUrl: XdsTypeUrl, name: string): void {
    this.#add(typeUrl, name);
    this.#writesDiffer = true;
  }

  #add(typeUrl: XdsTypeUrl, name: string): void {
    let names = this.#byType.get(typeUrl);
    if (names === undefined) this.#byType.set(typeUrl, (names = new Set()));
    names.add(name);
  }
}
