// Tracing cost per gateway call: spans off, `@opentelemetry/api` present with no SDK registered
// (what most installs have), and with an SDK recording every span (in-memory exporter).
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { z } from 'zod';
import { median, perCallMicros } from './measure.mjs';

export async function benchTracing(core) {
  const tool = core.defineTool({
    name: 'noop',
    description: 'Does nothing.',
    input: z.object({ text: z.string() }),
    execute: ({ text }) => ({ ok: true, length: text.length }),
  });
  const args = { text: 'hello' };
  const off = core.createToolGateway({ env: {}, tracing: false });
  const noSdk = core.createToolGateway({ env: {} });
  // Interleaved rounds: the same noise hits both sides.
  const offTimes = [];
  const noSdkTimes = [];
  for (let round = 0; round < 7; round += 1) {
    offTimes.push(await perCallMicros(() => off.invoke(tool, args), { samples: 15 }));
    noSdkTimes.push(await perCallMicros(() => noSdk.invoke(tool, args), { samples: 15 }));
  }
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  const withSdk = await perCallMicros(
    async () => {
      await noSdk.invoke(tool, args);
      if (exporter.getFinishedSpans().length > 10_000) exporter.reset();
    },
    { samples: 30 },
  );
  await provider.shutdown();
  trace.disable();
  const base = median(offTimes);
  const apiOnly = median(noSdkTimes) - base;
  const recorded = withSdk - base;
  return {
    rows: [
      ['tracing: false', base.toFixed(3), '—'],
      ['@opentelemetry/api, no SDK', median(noSdkTimes).toFixed(3), `+${apiOnly.toFixed(3)}`],
      ['SDK recording every span', withSdk.toFixed(3), `+${recorded.toFixed(3)}`],
    ],
    targets: [
      [
        `tracing with the API but no SDK adds under 1 µs per call (+${apiOnly.toFixed(3)} µs)`,
        apiOnly < 1,
      ],
    ],
  };
}
