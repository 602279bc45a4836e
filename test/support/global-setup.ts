// Fails fast, with the fix named, when the real services the integration tier needs are missing.
export default function setup(): void {
  const missing = ['TEST_DATABASE_URL', 'TEST_REDIS_URL'].filter((v) => !process.env[v]);
  if (missing.length > 0) {
    throw new Error(
      `${missing.join(' and ')} not set: the storage and rate-limit tests run against real PostgreSQL and Redis. ` +
        'Run `make test` (it starts both from Debian packages) or export the URLs yourself.',
    );
  }
}
