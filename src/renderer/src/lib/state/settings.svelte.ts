import { createSubscriber } from 'svelte/reactivity';
import type { SettingDescription, SettingUserValue } from '../../../../shared/api-types.js';
import { client } from '../api/index.js';
import { errorMessage } from '../format/error-message.js';

/** The settings schema with the values in force, refetched whenever a `settings.changed` event says so. */
export class SettingsState {
  #settings = $state.raw<SettingDescription[]>([]);
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
      this.#error = undefined;
    } catch (error) {
      this.#error = errorMessage(error);
    }
  }
}
