// The `ksadk-mcp` command run from source, for tests (the published bin runs dist/cli.js).
import { main } from '../cli.js';

process.exitCode = await main(process.argv.slice(2));
