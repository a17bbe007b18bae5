/** File extensions of saved media, by MIME type (anything else is saved as `.bin`). */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/ogg': 'ogg',
  'audio/webm': 'webm',
  'audio/flac': 'flac',
};

/** Every extension the result store may write for media (its retention removes only its own names). */
export const MEDIA_EXTENSIONS: readonly string[] = [
  ...new Set([...Object.values(EXTENSIONS), 'bin']),
];

/** The file extension a media part is saved with. */
export function mediaExtension(mime: string): string {
  return EXTENSIONS[mime.toLowerCase()] ?? 'bin';
}
