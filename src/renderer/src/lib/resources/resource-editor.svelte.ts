import { untrack } from 'svelte';
import type { Finding } from '../../../../shared/analysis-types.js';
import { isPolicyType } from '../../../../shared/policy-types.js';
import type { ResourceKey, Violation } from '../../../../shared/resources.js';
import { ApiRequestError, client, type KumaObject } from '../api/index.js';
import { errorMessage } from '../format/error-message.js';
import { lineDiff, type DiffLine } from './line-diff.js';
import { describeKey, keyFromText, template, toEditableYaml, withVersion, type Existing, type TemplateType } from './resource-text.js';
import { sameKey } from './resources-state.svelte.js';

/** What the editor holds: a stored resource, or a new one from a template. */
export type EditorTarget = { kind: 'stored'; key: ResourceKey } | { kind: 'new'; type: TemplateType };

/** Someone wrote the resource since the user loaded it: what is stored now against the user's text. */
export interface Conflict {
  message: string;
  /** The resource as stored now; overwriting sends the user's text with its version. */
  current: KumaObject;
  lines: DiffLine[];
}

/** What the API warns about a policy's text: before Apply (checked), or as the PUT answered it (applied). */
export interface PolicyWarnings {
  /** The text they are about: they show only while the editor holds it. */
  text: string;
  list: string[];
  /** The analysis's findings among them, to mark at their fields. */
  findings: Finding[];
  applied: boolean;
}

/** The label the proxy lifecycle puts on a Dataplane its proxy registered (see the API's takeOver). */
const ORIGIN_LABEL = 'meshdesk.io/origin';

/**
 * One resource in the YAML editor: load, apply, delete, and what the API said about it.
 * - A new resource (a template, or a stored one renamed in the editor) is only ever created: the
 *   API refuses to replace an existing one.
 * - An edit is an update of exactly the version the user loaded; when someone wrote in between,
 *   the conflict shows the stored text against the user's, to reload or overwrite.
 * - A Dataplane its proxy registered is only taken over (made the API's) when the user says so.
 * Validation errors are kept by field path (the editor finds their lines).
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
  /** The API refused to update a proxy-registered Dataplane without consent: what taking it over means. */
  takeOver = $state<string>();
  error = $state<string>();
  notice = $state<string>();
  busy = $state(false);
  /** Someone else wrote the open resource (its new version), or deleted it. */
  changedElsewhere = $state<number | 'deleted'>();
  #warnings = $state.raw<PolicyWarnings>();

  /** The API's warnings about the text in the editor (a policy that selects nothing, a deprecated field), if any. */
  get warnings(): PolicyWarnings | undefined {
    const warnings = this.#warnings;
    return warnings?.text === this.text && warnings.list.length > 0 ? warnings : undefined;
  }

  /**
   * Asks the API what applying the text would be warned about (a policy's only). Text that does not
   * read as a policy has none: its problems are the API's answer to Apply or to a preview.
   */
  async checkWarnings(): Promise<void> {
    const text = this.text;
    if (this.#warnings?.text === text) return;
    const read = keyFromText(text);
    if ('violations' in read || !isPolicyType(read.key.type)) {
      this.#warnings = undefined;
      return;
    }
    try {
      // A text the PUT would refuse has no warnings here: Apply shows the refusal at its fields.
      const { warnings: list, findings } = await client.policyWarnings(read.key.mesh, text);
      if (this.text === text) this.#warnings = { text, list, findings, applied: false };
    } catch {
      if (this.text === text) this.#warnings = undefined;
    }
  }

  get dirty(): boolean {
    return this.text !== this.original;
  }

  /**
   * Shows `target`, the route's selection, unless the editor shows it already (just applied, the
   * route catching up); a new resource starts from a template in `mesh`, its name and port free of
   * `existing`. Reads no state reactively: an effect that calls it follows `target` alone.
   */
  follow(target: EditorTarget | undefined, templateIn: () => { mesh: string; existing: Existing }): void {
    untrack(() => {
      const current = this.target;
      if (target === undefined) {
        this.target = undefined;
      } else if (target.kind === 'stored') {
        if (!(current?.kind === 'stored' && sameKey(current.key, target.key))) void this.open(target.key);
      } else if (!(current?.kind === 'new' && current.type === target.type)) {
        const { mesh, existing } = templateIn();
        this.startNew(target.type, mesh, existing);
      }
    });
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
      this.error = errorMessage(error);
    }
  }

  /** True when the open Dataplane was registered by its proxy (it goes when the proxy goes). */
  get proxyRegistered(): boolean {
    return (this.stored?.labels as Record<string, string> | undefined)?.[ORIGIN_LABEL] === 'proxy';
  }

  startNew(type: TemplateType, mesh: string, existing: Existing): void {
    this.target = { kind: 'new', type };
    this.#clearMessages();
    this.changedElsewhere = undefined;
    this.stored = undefined;
    this.text = this.original = template(type, mesh, existing);
  }

  /** The lists changed under an untouched template: pick a name and port that are still free. */
  refreshTemplate(mesh: string, existing: Existing): void {
    if (this.target?.kind !== 'new' || this.dirty || this.busy) return;
    this.text = this.original = template(this.target.type, mesh, existing);
  }

  /** Discards the edits and shows the stored resource as it is now. */
  async reload(): Promise<void> {
    if (this.target?.kind === 'stored') await this.open(this.target.key);
  }

  /**
   * PUTs the text to the URL its own type, mesh and name give; answers the stored key when applied.
   * `version` overrides the loaded one (overwriting after a conflict); `takeOver` is the user's
   * consent to make a proxy-registered Dataplane the API's.
   */
  async apply({ version, takeOver = false }: { version?: number; takeOver?: boolean } = {}): Promise<ResourceKey | undefined> {
    const read = keyFromText(this.text);
    this.#clearMessages();
    if ('violations' in read) {
      this.violations = read.violations;
      return undefined;
    }
    const target = this.target;
    const editing = target?.kind === 'stored' && sameKey(target.key, read.key) && this.stored !== undefined && this.changedElsewhere !== 'deleted';
    this.busy = true;
    try {
      const { resource, warnings } = editing
        ? await client.applyResource(read.key, withVersion(this.text, version ?? Number(this.stored!.version)), { takeOver })
        : await client.applyResource(read.key, this.text, { createOnly: true });
      this.target = { kind: 'stored', key: read.key };
      this.#show(resource);
      // The findings of the check before Apply are about this very text: still where they were.
      const findings = this.#warnings?.text === this.text ? this.#warnings.findings : [];
      this.#warnings = { text: this.text, list: warnings, findings, applied: true };
      this.notice = `${editing ? 'Applied' : 'Created'} ${describeKey(read.key)}: version ${String(resource.version)}`;
      return read.key;
    } catch (error) {
      await this.#showFailure(error, read.key, editing);
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
      this.error = `Could not delete ${describeKey(key)}: ${error instanceof ApiRequestError ? error.body.details || error.body.title : errorMessage(error)}`;
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

  async #showFailure(error: unknown, key: ResourceKey, editing: boolean): Promise<void> {
    if (!(error instanceof ApiRequestError)) {
      this.error = errorMessage(error);
    } else if (error.status === 409 && error.causes.some((cause) => cause.field === 'version')) {
      await this.#showConflict(key);
    } else if (error.status === 409 && error.causes.some((cause) => cause.field.startsWith('labels['))) {
      // The API's details speak to API users (`?takeOver=true`); the button here is the consent.
      this.takeOver = `${describeKey(key)} was registered by its proxy: it is deleted when the proxy leaves, and the proxy's next registration replaces your edit. Take it over to make it a Dataplane of your own that stays.`;
    } else if (error.status === 409 && !editing) {
      this.error = `${describeKey(key)} already exists: a new resource never replaces one. Choose another name, or open ${key.name} to edit it.`;
    } else if (error.status === 400 && error.causes.length > 0) {
      this.violations = error.causes;
      this.error = error.body.details || error.body.title;
    } else {
      this.error = error.body.details || error.body.title;
    }
  }

  /** What is stored now against the user's text; the user's edits stay in the editor. */
  async #showConflict(key: ResourceKey): Promise<void> {
    try {
      const current = await client.resource(key);
      const stored = this.stored?.version;
      this.conflict = {
        message: `${describeKey(key)} changed since you loaded it: you edited version ${String(stored)}, version ${String(current.version)} is stored now.`,
        current,
        lines: lineDiff(toEditableYaml(current), this.text),
      };
    } catch (error) {
      // Gone meanwhile: applying again creates it.
      this.error = `${describeKey(key)} changed since you loaded it and could not be read again: ${errorMessage(error)}`;
      this.changedElsewhere = 'deleted';
    }
  }

  /** Discards the user's edits for the resource as stored now (from the conflict). */
  takeStored(): void {
    if (this.conflict) this.#show(this.conflict.current);
    this.conflict = undefined;
  }

  #isOpen(key: ResourceKey): boolean {
    return this.target?.kind === 'stored' && sameKey(this.target.key, key);
  }

  #clearMessages(): void {
    this.violations = [];
    this.conflict = undefined;
    this.takeOver = undefined;
    this.error = undefined;
    this.notice = undefined;
  }
}
