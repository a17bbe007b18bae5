import { defineTool } from '@ksadk/core';
import { z } from 'zod';

/** A tiny notebook the demo's tools read and write. */
export function createNotebook(initial: Record<string, string> = {}) {
  const notes = new Map(Object.entries(initial));
  let writes = 0;

  const readNote = defineTool({
    name: 'read_note',
    description:
      'Read one note by title. Use before changing a note. Returns ok:false with error_type "not_found" for unknown titles.',
    input: z.object({ title: z.string().min(1).describe('The note title') }),
    execute: ({ title }) => {
      const body = notes.get(title);
      return body === undefined
        ? { ok: false, error_type: 'not_found', error_message: `No note titled "${title}".` }
        : { ok: true, title, body };
    },
  });

  const writeNote = defineTool({
    name: 'write_note',
    description:
      'Create or replace a note. Changes what the user keeps, so it needs their approval. Bodies up to 2000 characters.',
    input: z.object({
      title: z.string().min(1),
      body: z.string().max(2000),
      pinned: z.boolean().default(false).describe('Keep the note at the top'),
    }),
    policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
    execute: ({ title, body, pinned }) => {
      notes.set(title, body);
      writes += 1;
      return { ok: true, title, chars: body.length, pinned };
    },
  });

  return { notes, tools: [readNote, writeNote], writeCount: () => writes };
}
