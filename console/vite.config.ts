/**
 * The console's build: one page under /console/ (the gateway serves console/dist there), hashed
 * assets, no source maps shipped, nothing inlined as data: URLs (the CSP allows only this origin).
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 800,
  },
});
