// A response computed before it is sent, so idempotent routes can store it and replay it byte for byte.
export interface FinishedResponse {
  statusCode: number;
  headers: Record<string, string>;
  /** The exact bytes sent the first time, so a replay is byte-identical. */
  body: string;
}
