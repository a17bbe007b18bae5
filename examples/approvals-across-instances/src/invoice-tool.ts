import { appendFileSync } from 'node:fs';
import { defineTool, type Tool } from '@ksadk/core';
import { z } from 'zod';

/**
 * The side effect every story guards: sending an invoice. Each send appends a line to `sentLog`
 * (one `O_APPEND` write), so the test counts how often it really ran across all processes.
 */
export function invoiceTool(sentLog: string): Tool {
  return defineTool({
    name: 'send_invoice',
    description: 'Sends an invoice to a customer. Use only when the user asks to invoice someone.',
    input: z.object({ customer: z.string(), amount_eur: z.number() }),
    policy: { riskLevel: 'high', sideEffects: ['external_message', 'payment'] },
    execute: ({ customer, amount_eur }) => {
      appendFileSync(sentLog, `${process.pid} ${customer} ${amount_eur}\n`);
      return { ok: true, sent_to: customer, amount_eur };
    },
  });
}

/** What the model asks for in every story. */
export const INVOICE_ARGS = { customer: 'ACME', amount_eur: 1200 };
