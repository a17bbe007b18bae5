import { liveClientFromEnv, runDemo } from './demo.js';

const live = liveClientFromEnv();
console.log(
  live
    ? `KsADK demo — live model ${live.model}\n`
    : 'KsADK demo — offline (scripted model; set OPENAI_API_KEY for a real one)\n',
);
const result = await runDemo(live ?? {});
for (const line of result.transcript) console.log(`  ${line}`);
console.log(`\nnotes: ${JSON.stringify(result.notes)}`);

// Self-check: the write happened exactly once, and only after the host approved it.
const problems: string[] = [];
if (result.approvalsAsked < 1) problems.push('the gated write was never sent for approval');
if (result.writes !== (live ? result.approvalsAsked : 1))
  problems.push(`expected each approved write to run once, saw ${result.writes}`);
if (!live && result.notes['groceries'] !== 'milk, eggs, coffee')
  problems.push('the note was not updated');
if (problems.length > 0) {
  console.error(`\ndemo check FAILED: ${problems.join('; ')}`);
  process.exit(1);
}
console.log('\ndemo check passed: the write was denied until the host approved it, then ran once.');
