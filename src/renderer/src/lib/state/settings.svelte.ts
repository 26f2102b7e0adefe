import { createSubscriber } from 'svelte/reactivity';
import type { SettingDescription, SettingUserValue } from '../../../../shared/api-types.js';
import { client } from '../api/index.js';

/** The settings schema with the values in force, refetched whenever a `settings.changed` event says so. */
export class SettingsState {
  #settings = $state.raw<SettingDescription[]>([]);
  #loaded = $state(false);
  #error = $state<string>();

  readonly #subscribe = createSubscriber(() => {
    const stopEvents = client.subscribe((event) => {
      if (event.topic === 'settings.changed') void this.#load();
    });
    const stopLive = client.onLive(() => void this.#load());
    return () => {
      stopEvents();
      stopLive();
    };
  });

  get all(): SettingDescription[] {
    this.#subscribe();
    return this.#settings;
  }

  get loaded(): boolean {
    this.#subscribe();
    return this.#loaded;
  }

  get error(): string | undefined {
    this.#subscribe();
    return this.#error;
  }

  /** Applies one value; throws the API's error (400 with `causes`) for the caller to show at the field. */
  async apply(name: string, value: SettingUserValue): Promise<void> {
    await client.updateSettings({ [name]: value });
    await this.#load();
  }

  async #load(): Promise<void> {
    try {
      this.#settings = await client.settingsSchema();
      this.#loaded = true;
      this.#error = undefined;
    } catch (error) {
      this.#error = error instanceof Error ? error.message : String(error);
    }
  }
}
