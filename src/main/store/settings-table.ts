import type { Db } from './database.js';

/** A saved setting as the `settings` table holds it: its name and its value as JSON text. */
export interface SettingRow {
  name: string;
  value: string;
}

/** The `settings` table, as Settings reads it once and writes it per update. */
export interface SettingsTable {
  rows(): SettingRow[];
  /** Saves every row in one transaction, all or nothing. */
  save(rows: readonly SettingRow[], modificationTime: string): void;
}

export function settingsTable(db: Db): SettingsTable {
  const upsert = db.prepare<[string, string, string]>(
    `INSERT INTO settings (name, value, modification_time) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET value = excluded.value, modification_time = excluded.modification_time`,
  );
  const saveAll = db.transaction((rows: readonly SettingRow[], modificationTime: string) => {
    for (const { name, value } of rows) upsert.run(name, value, modificationTime);
  });
  const select = db.prepare<[], SettingRow>('SELECT name, value FROM settings ORDER BY name');
  return {
    rows: () => select.all(),
    save: (rows, modificationTime) => saveAll(rows, modificationTime),
  };
}
