import { defineTool, type Tool } from '@ksadk/core';
import { z } from 'zod';

/** The demo's tools: saving a note needs the user's approval; listing them does not. */
export function notesTools(notes: Map<string, string>): Tool[] {
  return [
    defineTool({
      name: 'save_note',
      description: 'Saves a note under a title (replacing one of the same title).',
      input: z.object({ title: z.string().min(1).max(80), text: z.string().max(2000) }),
      policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
      describeCall: ({ title }) => `save the note "${String(title)}"`,
      execute: ({ title, text }) => {
        notes.set(title, text);
        return { ok: true, saved: title, notes: notes.size };
      },
    }),
    defineTool({
      name: 'list_notes',
      description: 'Lists the saved notes.',
      input: z.object({}),
      execute: () => ({ ok: true, titles: [...notes.keys()] }),
    }),
  ];
}
