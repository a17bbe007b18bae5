import { adapterVitestConfig } from '../../vitest.adapter.js';

// The console's browser tests run the OpenAI example's loop from @ksadk/openai's source.
export default adapterVitestConfig('@ksadk/console', ['openai']);
