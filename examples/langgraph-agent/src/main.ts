import { runLangGraphExample } from './agent.js';
import { checkReport } from './scenario.js';

const report = await runLangGraphExample();
console.log(
  report.live
    ? 'KsADK × LangGraph — live model\n'
    : 'KsADK × LangGraph — offline (scripted model; set OPENAI_API_KEY for a real one)\n',
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
  'example check passed: memory → skills → built-ins → MCP; the graph paused for each gated call, the host resumed it, it ran once.',
);
