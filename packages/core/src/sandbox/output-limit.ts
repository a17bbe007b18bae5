/** Bytes kept per stream by default. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** Bytes kept per stream at most, whatever a command asks for. */
export const MAX_OUTPUT_BYTES_CAP = 64 * 1024 * 1024;

/** A command's `maxOutputBytes`: a non-negative integer up to 64 MiB, else the 1 MiB default. */
export function clampOutputBytes(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value) || value < 0) return DEFAULT_MAX_OUTPUT_BYTES;
  return Math.min(Math.floor(value), MAX_OUTPUT_BYTES_CAP);
}
