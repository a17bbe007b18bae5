import { describe, expect, it } from 'vitest';
import { runOpenAIExample } from './agent.js';
import { checkReport } from './scenario.js';

describe('OpenAI function-calling example', () => {
  it('runs offline, asks for the edit, and checks itself', async () => {
    const report = await runOpenAIExample({ live: false });
    expect(checkReport(report)).toEqual([]);
    expect(report.approvalsAsked).toBe(2);
    expect(report.notes).toBe('# Trip\n- pack: passport, umbrella\n');
    expect(report.transcript.join('\n')).toMatch(
      /edit_workspace_file needs approval[\s\S]*host: approves/,
    );
  });

  it('a rejection leaves the notes alone', async () => {
    const report = await runOpenAIExample({ live: false, approve: false });
    expect(report.notes).toBe('# Trip\n- pack: passport\n');
    expect(report.transcript.join('\n')).toContain('approval_rejected');
  });
});
