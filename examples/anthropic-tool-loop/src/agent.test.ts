import { describe, expect, it } from 'vitest';
import { runAnthropicExample } from './agent.js';

describe('Anthropic tool loop example', () => {
  it('runs offline: the edit waits, the saved pause is resumed by the other loop, the note changes once', async () => {
    const report = await runAnthropicExample({ live: false });
    expect(report.approvalsAsked).toBe(1);
    expect(report.notes).toBe('# Trip\n- pack: passport, umbrella\n');
    expect(report.transcript.join('\n')).toMatch(
      /edit_workspace_file needs approval[\s\S]*host: approves[\s\S]*claude: Added the umbrella/,
    );
  });

  it('a rejection leaves the note alone and Claude is told', async () => {
    const report = await runAnthropicExample({ live: false, approve: false });
    expect(report.notes).toBe('# Trip\n- pack: passport\n');
    expect(report.transcript.join('\n')).toContain('approval_rejected');
    expect(report.transcript.at(-1)).toBe('claude: You declined, so the note is unchanged.');
  });
});
