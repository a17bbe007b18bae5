import { runOpenAIExample } from './agent.js';
import { checkReport } from './scenario.js';

const report = await runOpenAIExample();
console.log(
  report.live
    ? 'KsADK × OpenAI function calling — live model\n'
    : 'KsADK × OpenAI function calling — offline (scripted model; set OPENAI_API_KEY for a real one)\n',
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
  'example check passed: memory → skills → built-ins → MCP; each gated call waited for the host, then ran once.',
);
