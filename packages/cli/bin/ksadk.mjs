#!/usr/bin/env node
// ksadk: KsADK's command line. `ksadk --help` lists the commands.
import { main } from '../dist/cli.js';

const code = await main(process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
