/**
 * Every IPC channel between the preload and the main process, in one place (the preload and
 * `src/main/electron/ipc.ts` use nothing else). The payloads are the MeshdeskBridge's types.
 */
export const IpcChannel = {
  /** invoke, renderer → main: an ApiRequest, answered with an ApiResponse. */
  request: 'meshdesk:request',
  /** send, renderer → main: the page listens now; main flushes the events it held back. */
  ready: 'meshdesk:ready',
  /** send, main → renderer: one CoreEvent. */
  event: 'meshdesk:event',
} as const;
