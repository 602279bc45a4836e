// The integration project's global setup (the unit project has none): fails fast, with the fix named,
// when the real services the integration tier needs are missing, and starts the test embedding model,
// exporting its URL as TEST_EMBEDDINGS_URL to every test file.
import { startEmbedder } from './embedder.ts';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const missing = ['TEST_DATABASE_URL', 'TEST_REDIS_URL', 'KUBECONFIG'].filter((v) => !process.env[v]);
  if (missing.length > 0) {
    throw new Error(
      `${missing.join(', ')} not set: the integration tier runs against real PostgreSQL, Redis and a real ` +
        'Kubernetes control plane. Run `make test` (it starts all three) or export them yourself ' +
        '(`npm run cluster:up` prints a KUBECONFIG line). `npm run test:unit` needs none of them.',
    );
  }
  if (process.env.TEST_EMBEDDINGS_URL) return undefined;
  const embedder = await startEmbedder();
  process.env.TEST_EMBEDDINGS_URL = embedder.url;
  return () => embedder.stop();
}
