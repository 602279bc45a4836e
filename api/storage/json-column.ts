// jsonb comes back parsed from PostgreSQL and as text from SQLite; both leave here as values.
export function readJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function writeJson(value: unknown): string {
  return JSON.stringify(value ?? null);
}
