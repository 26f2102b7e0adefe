import { MediaQuery } from 'svelte/reactivity';

export type ThemeChoice = 'light' | 'dark' | 'system';
export type Theme = 'light' | 'dark';

const STORAGE_KEY = 'meshdesk.theme';

/** The user's theme choice, remembered in localStorage; `system` follows prefers-color-scheme live. */
class ThemePreference {
  #choice = $state<ThemeChoice>(readChoice());
  readonly #prefersDark = new MediaQuery('(prefers-color-scheme: dark)');

  get choice(): ThemeChoice {
    return this.#choice;
  }

  get current(): Theme {
    if (this.#choice !== 'system') return this.#choice;
    return this.#prefersDark.current ? 'dark' : 'light';
  }

  set(choice: ThemeChoice): void {
    this.#choice = choice;
    localStorage.setItem(STORAGE_KEY, choice);
  }

  /** Light ↔ dark, leaving "system" for an explicit choice. */
  toggle(): void {
    this.set(this.current === 'dark' ? 'light' : 'dark');
  }
}

function readChoice(): ThemeChoice {
  const stored = localStorage.getItem(STORAGE_KEY);
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

export const theme = new ThemePreference();
