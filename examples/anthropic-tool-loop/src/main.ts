import { runAnthropicExample } from './agent.js';

const report = await runAnthropicExample();
console.log(
  report.live
    ? 'KsADK × Claude (Anthropic Messages) — live model\n'
    : 'KsADK × Claude (Anthropic Messages) — offline (scripted; set ANTHROPIC_API_KEY for Claude)\n',
);
for (const line of report.transcript) console.log(`  ${line}`);
console.log(`\nnotes/trip.md now:\n${report.notes}`);
if (report.approvalsAsked === 0 || !report.notes.includes('umbrella')) {
  console.error('example check FAILED: the edit did not wait for the host, or did not happen');
  process.exit(1);
}
console.log(
  'example check passed: the edit waited for the host, was resumed from JSON, and ran once.',
);
