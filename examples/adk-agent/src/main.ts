import { runAdkExample } from './agent.js';
import { checkReport } from './scenario.js';

const report = await runAdkExample();
console.log(
  report.live
    ? 'KsADK × Google ADK — live model\n'
    : 'KsADK × Google ADK — offline (scripted model; set GEMINI_API_KEY for a real one)\n',
);
console.log(`tools, in load order: ${report.toolOrder.join(', ')}\n`);
for (const line of report.transcript) console.log(`  ${line}`);
console.log(`\nnotes/trip.md now:\n${report.notes}`);
const problems = checkReport(report);
if (problems.length > 0) {
  console.error(`example check FAILED: ${problems.join('; ')}`);
  process.exit(1);
}
console.log(
  'example check passed: memory → skills → built-ins → MCP; each gated call waited for tool confirmation, then ran once.',
);
