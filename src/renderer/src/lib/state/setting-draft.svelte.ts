import { errorMessage } from '../format/error-message.js';

/**
 * A setting's edit field: what the user types is a draft over the value in force, applied with
 * Enter or Apply and dropped with Escape. Without a draft the field shows the value in force, so
 * a change made elsewhere shows at once. A refused value keeps the draft and says why.
 */
export class SettingDraft {
  /** What the user typed; undefined while the field shows the value in force. */
  draft = $state<string>();
  error = $state<string>();
  applying = $state(false);
  /** The value just applied, for a moment's acknowledgement. */
  applied = $state<string>();

  readonly #current: () => string;
  readonly #apply: (text: string) => Promise<void>;

  /** `current` reads the value in force; `apply` resolves once applied or rejects with the reason. */
  constructor(current: () => string, apply: (text: string) => Promise<void>) {
    this.#current = current;
    this.#apply = apply;
  }

  get shown(): string {
    return this.draft ?? this.#current();
  }

  get dirty(): boolean {
    return this.draft !== undefined && this.draft.trim() !== this.#current();
  }

  async apply(text: string = this.shown): Promise<void> {
    const value = text.trim();
    this.applying = true;
    this.error = undefined;
    try {
      await this.#apply(value);
      this.draft = undefined;
      this.applied = value;
      setTimeout(() => (this.applied = undefined), 1500);
    } catch (failure) {
      this.error = errorMessage(failure);
    } finally {
      this.applying = false;
    }
  }

  /** Enter applies a changed draft; Escape drops it, and only it (not the view or dialog around). */
  readonly onkeydown = (event: KeyboardEvent): void => {
    if (event.key === 'Enter' && this.dirty) void this.apply();
    if (event.key === 'Escape' && this.draft !== undefined) {
      event.stopPropagation();
      this.draft = undefined;
      this.error = undefined;
    }
  };
}
