import { describe, expect, it } from 'vitest';
import { runOpenAIExample } from './agent.js';
import { checkReport } from './scenario.js';

describe('OpenAI function-calling example', () => {
  it('runs offline, asks for the edit, and checks itself', async () => {
    const report = await runOpenAIExample({ live: false });
    expect(checkReport(report)).toEqual([]);
    // edit_workspace_file, execute_skills, and run_code where bubblewrap can isolate it (CI installs it).
    expect(report.approvalsAsked).toBe(report.ranCode ? 3 : 2);
    if (process.env['CI']) expect(report.ranCode).toBe(true);
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
