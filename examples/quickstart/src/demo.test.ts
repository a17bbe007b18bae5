import { createToolGateway } from '@ksadk/core';
import { describe, expect, it } from 'vitest';
import { runDemo } from './demo.js';

describe('quickstart demo', () => {
  it('runs the write only after the host approves, exactly once', async () => {
    const result = await runDemo({ gateway: createToolGateway({ env: {} }) });
    expect(result.approvalsAsked).toBe(1);
    expect(result.writes).toBe(1);
    expect(result.notes['groceries']).toBe('milk, eggs, coffee');
    expect(result.finalAnswer).toMatch(/coffee/);
    expect(result.transcript.join('\n')).toMatch(/write_note needs approval.*\n.*host: approves/);
  });

  it('a rejection leaves the note alone and tells the model', async () => {
    const result = await runDemo({
      gateway: createToolGateway({ env: {} }),
      decide: () => 'reject',
    });
    expect(result.writes).toBe(0);
    expect(result.notes['groceries']).toBe('milk, eggs');
    expect(result.transcript.join('\n')).toMatch(/approval_rejected/);
  });
});
