import type { ResourceKey, ResourceType, Violation } from '../../../../shared/resources.js';
import { ApiRequestError, client, type KumaObject } from '../api/index.js';
import { describeKey, keyFromText, template, toEditableYaml } from './resource-text.js';
import { sameKey } from './resources-state.svelte.js';

/** What the editor holds: a stored resource, or a new one from a template. */
export type EditorTarget = { kind: 'stored'; key: ResourceKey } | { kind: 'new'; type: ResourceType };

/** A stale `version` (someone wrote the resource since it was loaded). */
export interface Conflict {
  message: string;
}

/**
 * One resource in the YAML editor: load, apply (PUT, with the loaded `version` for optimistic
 * concurrency), delete, and what the API said about it. Validation errors are kept by field path
 * (the editor finds their lines); a 409 is a conflict the user resolves by reloading.
 */
export class ResourceEditor {
  target = $state.raw<EditorTarget>();
  text = $state('');
  /** The text as loaded, last applied or templated: `dirty` compares with it. */
  original = $state('');
  /** The stored resource as last loaded; undefined for a new one. */
  stored = $state.raw<KumaObject>();
  violations = $state.raw<Violation[]>([]);
  conflict = $state.raw<Conflict>();
  error = $state<string>();
  notice = $state<string>();
  busy = $state(false);
  /** Someone else wrote the open resource (its new version), or deleted it. */
  changedElsewhere = $state<number | 'deleted'>();

  get dirty(): boolean {
    return this.text !== this.original;
  }

  async open(key: ResourceKey): Promise<void> {
    this.target = { kind: 'stored', key };
    this.#clearMessages();
    this.changedElsewhere = undefined;
    try {
      const resource = await client.resource(key);
      if (!this.#isOpen(key)) return;
      this.#show(resource);
    } catch (error) {
      if (!this.#isOpen(key)) return;
      this.stored = undefined;
      this.text = this.original = '';
      this.error = describe(error);
    }
  }

  startNew(type: ResourceType, mesh: string): void {
    this.target = { kind: 'new', type };
    this.#clearMessages();
    this.changedElsewhere = undefined;
    this.stored = undefined;
    this.text = this.original = template(type, mesh);
  }

  /** Discards the edits and shows the stored resource as it is now. */
  async reload(): Promise<void> {
    if (this.target?.kind === 'stored') await this.open(this.target.key);
  }

  /** PUTs the text to the URL its own type, mesh and name give; answers the stored key when applied. */
  async apply(): Promise<ResourceKey | undefined> {
    const read = keyFromText(this.text);
    this.#clearMessages();
    if ('violations' in read) {
      this.violations = read.violations;
      return undefined;
    }
    this.busy = true;
    try {
      const resource = await client.applyResource(read.key, this.text);
      this.target = { kind: 'stored', key: read.key };
      this.#show(resource);
      this.notice = `Applied ${describeKey(read.key)}: version ${String(resource.version)}`;
      return read.key;
    } catch (error) {
      this.#showFailure(error);
      return undefined;
    } finally {
      this.busy = false;
    }
  }

  async remove(): Promise<boolean> {
    if (this.target?.kind !== 'stored') return false;
    const key = this.target.key;
    this.#clearMessages();
    this.busy = true;
    try {
      await client.deleteResource(key);
      this.target = undefined;
      this.stored = undefined;
      this.text = this.original = '';
      this.notice = `Deleted ${describeKey(key)}`;
      return true;
    } catch (error) {
      this.error = `Could not delete ${describeKey(key)}: ${error instanceof ApiRequestError ? error.body.details || error.body.title : describe(error)}`;
      return false;
    } finally {
      this.busy = false;
    }
  }

  /** A live `resource.changed` event: refresh a clean editor, warn a dirty one. */
  onChanged(key: ResourceKey, change: 'created' | 'updated' | 'deleted', version: number): void {
    if (this.target?.kind !== 'stored' || !sameKey(this.target.key, key) || this.busy) return;
    if (change === 'deleted') {
      this.changedElsewhere = 'deleted';
    } else if (version !== this.stored?.version) {
      if (this.dirty) this.changedElsewhere = version;
      else void this.open(key);
    }
  }

  #show(resource: KumaObject): void {
    this.stored = resource;
    this.text = this.original = toEditableYaml(resource);
    this.changedElsewhere = undefined;
  }

  #showFailure(error: unknown): void {
    if (!(error instanceof ApiRequestError)) {
      this.error = describe(error);
    } else if (error.status === 409 && error.causes.some((cause) => cause.field === 'version')) {
      const stored = error.causes.find((cause) => cause.field === 'version')!.message;
      this.conflict = { message: `${error.body.details} (${stored}). Reload to see the stored resource; your edits will be lost.` };
    } else if (error.status === 400 && error.causes.length > 0) {
      this.violations = error.causes;
      this.error = error.body.details || error.body.title;
    } else {
      this.error = error.body.details || error.body.title;
    }
  }

  #isOpen(key: ResourceKey): boolean {
    return this.target?.kind === 'stored' && sameKey(this.target.key, key);
  }

  #clearMessages(): void {
    this.violations = [];
    this.conflict = undefined;
    this.error = undefined;
    this.notice = undefined;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
