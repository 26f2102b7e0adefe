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
  /** send, renderer → main: how many events the page has taken since it last said (EVENTS_PER_RECEIPT). */
  received: 'meshdesk:received',
  /**
   * send, main → renderer: the page fell behind and events after this were dropped; it reloads
   * what it shows and says `ready` again, and events flow again.
   */
  gap: 'meshdesk:gap',
} as const;

/** The page reports the events it has taken in batches of this many. */
export const EVENTS_PER_RECEIPT = 100;
