// The renderer's only door to the main process. Intentionally empty until the IPC contract lands:
// the renderer talks to the core over the loopback HTTP API meanwhile.
export {};
