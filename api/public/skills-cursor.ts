// Opaque keyset cursors for the skills list: base64url of a small versioned JSON object.

export function encodeSkillsCursor(afterName: string): string {
  return Buffer.from(JSON.stringify({ v: 1, after: afterName })).toString('base64url');
}

/** Returns the name to continue after, or undefined when the cursor was not made by encodeSkillsCursor. */
export function decodeSkillsCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      v?: unknown;
      after?: unknown;
    };
    return value.v === 1 && typeof value.after === 'string' && value.after.length > 0
      ? value.after
      : undefined;
  } catch {
    return undefined;
  }
}
