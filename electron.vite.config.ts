import { resolve } from 'node:path';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          headless: resolve(__dirname, 'src/main/headless.ts'),
          // Started as a worker thread by store/worker/storage-client.ts, which looks for it here.
          'storage-worker': resolve(__dirname, 'src/main/store/worker/storage-worker.ts'),
          // The thread that reads large request bodies (src/main/api/body-reading): found beside the entries.
          'body-worker': resolve(__dirname, 'src/main/api/body-reading/body-worker.ts'),
        },
      },
    },
  },
  preload: {
    plugins: [externalizeDepsPlugin()],
    // A sandboxed preload must be CommonJS.
    build: { rollupOptions: { output: { format: 'cjs', entryFileNames: '[name].cjs' } } },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    plugins: [svelte()],
    build: { rollupOptions: { input: resolve(__dirname, 'src/renderer/index.html') } },
  },
});
