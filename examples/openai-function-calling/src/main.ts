import { runOpenAIExample } from './agent.js';
import { checkReport, type ExampleReport } from './scenario.js';

/** Prints what the run did. */
function show(report: ExampleReport): void {
  console.log(
    report.live
      ? 'KsADK × OpenAI function calling — live model\n'
      : 'KsADK × OpenAI function calling — offline (scripted model; set OPENAI_API_KEY for a real one)\n',
  );
  console.log(`tools, in load order: ${report.toolOrder.join(', ')}\n`);
  for (const line of report.transcript) console.log(`  ${line}`);
  console.log(`\nnotes/trip.md now:\n${report.notes}`);
}

if (process.argv.includes('--console')) {
  // Every gated call waits for a decision in the KsADK console, in the browser.
  const interrupted = new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  await runOpenAIExample({
    console: {
      onReady: (url) =>
        console.log(
          `KsADK console: ${url}\nOpen it in your browser: each gated call waits there for your decision.\n`,
        ),
      onRunEnd: (report) => {
        show(report);
        console.log(
          '\nThe run is over; the console stays open to look at its calls. Ctrl-C to stop.',
        );
      },
      keepOpen: interrupted,
    },
  });
} else {
  const report = await runOpenAIExample();
  show(report);
  const problems = checkReport(report);
  if (problems.length > 0) {
    console.error(`example check FAILED: ${problems.join('; ')}`);
    process.exit(1);
  }
  console.log(
    'example check passed: memory → skills → built-ins → MCP; each gated call waited for the host, then ran once.',
  );
}
