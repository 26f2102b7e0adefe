// Electronegativity ships no types: the part of its programmatic API scripts/electron-security.ts uses.
declare module '@doyensec/electronegativity' {
  export interface ElectronegativityOptions {
    input: string;
    isRelative?: boolean;
    isVerbose?: boolean;
    electronVersionOverride?: string;
    parserPlugins?: string[];
    customScan?: string[];
    excludeFromScan?: string[];
  }
  export interface ElectronegativityIssue {
    id: string;
    file: string;
    location: { line: number; column: number };
    severity: { name: string };
    confidence: { name: string };
    manualReview: boolean;
    shortenedURL: string;
  }
  export interface ElectronegativityResult {
    errors: { file: string; message: string; tolerable: boolean }[];
    issues: ElectronegativityIssue[];
  }
  export default function run(options: ElectronegativityOptions): Promise<ElectronegativityResult>;
}
