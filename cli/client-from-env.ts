// The SDK client the commands use: COLONY_ENDPOINT (default http://localhost:8080) and COLONY_API_KEY.
import { ColonyClient } from './sdk/client.ts';

export function clientFrom(env: NodeJS.ProcessEnv): ColonyClient {
  return new ColonyClient({
    endpoint: env.COLONY_ENDPOINT ?? 'http://localhost:8080',
    apiKey: env.COLONY_API_KEY,
  });
}
