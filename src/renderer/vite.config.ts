// `npm run build:renderer`: the renderer alone, as electron-vite's renderer build makes it
// (same root, plugin and output folder), for headless mode and the UI tests: it does not need
// main and preload to build. Paths are relative to the package root, where npm runs scripts.
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'src/renderer',
  base: './',
  plugins: [svelte()],
  build: { outDir: '../../out/renderer', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
});
