// OpenAPI response entries for problems, declared with their real media type.
import { problemSchema } from './schemas.ts';

const descriptions: Record<number, string> = {
  400: 'Malformed request (application/problem+json)',
  401: 'Missing, invalid or revoked bearer token (application/problem+json)',
  403: 'Insufficient scope, or not allowed on this resource (application/problem+json)',
  404: 'Not found (application/problem+json)',
  409: 'Conflicts with the current state (application/problem+json)',
  413: 'Request body too large (application/problem+json)',
  415: 'Body is not JSON (application/problem+json)',
  422: 'Idempotency key reused with a different body (application/problem+json)',
  429: 'Rate limit exceeded; retry after X-RateLimit-Reset seconds (application/problem+json)',
  503: 'A dependency is not configured or not reachable (application/problem+json)',
};

export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      {
        description: descriptions[s] ?? 'Problem',
        content: { 'application/problem+json': { schema: problemSchema } },
      },
    ]),
  );
}

/** Every /api/v1 operation may answer these (spec part 4). */
export const standardProblems = problemResponses(400, 404, 429);
