#!/usr/bin/env node
// ksadk-mcp: a KsADK tool catalogue served over MCP (stdio, or Streamable HTTP with --http).
// `ksadk-mcp --help` lists the options.
import { main } from '../dist/cli.js';

process.exitCode = await main(process.argv.slice(2));
