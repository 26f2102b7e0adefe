// The renderer's view of the preload, derived from the one shared contract (never written twice).
import type { MeshdeskBridge } from '../shared/bridge.js';

declare global {
  interface Window {
    /** Present in the desktop app; absent in headless mode, where the UI uses HTTP and SSE. */
    meshdesk?: MeshdeskBridge;
  }
}

export {};
