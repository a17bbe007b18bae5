#!/usr/bin/env node
// ksadk-console: the KsADK console on the stores your agents share. `ksadk-console --help`.
import { main } from '../dist/cli.js';

const code = await main(process.argv.slice(2));
if (code !== 0) process.exit(code);
