import type { MemoryBackend } from '../../memory/memory-backend.js';

/** Limits a memory check asks its backend for. */
export interface MemoryBackendLimits {
  maxRecordsPerScope?: number;
}

/**
 * Makes a fresh, empty backend with the given limits (unset ones at the backend's defaults). Each
 * check makes its own backend and closes it (`close()`, when it has one) afterwards.
 */
export type MemoryBackendFactory = (
  limits: MemoryBackendLimits,
) => MemoryBackend | Promise<MemoryBackend>;
