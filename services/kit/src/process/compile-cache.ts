import module from 'node:module';

/**
 * Writes the compiled code of the modules loaded so far to the directory NODE_COMPILE_CACHE names
 * (Node 22.10+; the image sets it). Node otherwise writes it only when the process exits cleanly,
 * which a process killed at the end of its grace period, OOM-killed or crashed never does, and the
 * next start would compile everything again. Called once a process listens, when its modules are
 * loaded. Nothing on Node 20, or without the setting.
 */
export function flushCompileCache(): void {
  (module as { flushCompileCache?: () => void }).flushCompileCache?.();
}
